//===- HostElements.h - Dense attributes <-> host tensors, in one place ---===//
//
// The one conversion between a tg.constant's DenseElementsAttr and the reference's HostTensor,
// both ways. The tracer's importer builds constants with it, the folds read and write splats
// with it, the interpreter evaluates constants with it and code generation uploads them with
// it. Float elements convert exactly (a host value is already rounded to its dtype, and
// widening to f32 is exact); integers keep their sign, bool is 0 or 1.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Reference/HostTensor.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>

namespace tg::ir {

/// The elements of `elements` as a host tensor of its dtype and shape (a splat expanded to
/// every element). Throws tg::Error for an element type tg does not have.
ref::HostTensor hostFromElements(mlir::DenseElementsAttr elements);

/// A splat's one element as a rank-0 host tensor of its dtype; nullopt for an element type tg
/// does not have.
std::optional<ref::HostTensor> splatElement(mlir::DenseElementsAttr splat);

/// `host` as the elements of `type` (as many as the type has), or with `splat` its element 0
/// repeated over the type's shape.
mlir::DenseElementsAttr elementsFromHost(const ref::HostTensor& host, mlir::ShapedType type,
                                         bool splat = false);

}  // namespace tg::ir
