//===- OpDescription.h - tg ops <-> MLIR-free graph terms -----------------===//
//
// The bridge between the tg dialect and the MLIR-free vocabulary of tg/Graph/OpKind.h:
// describeOp() reads an op as (kind, attrs) (used by the verifiers, the interpreter and code
// generation), createOp() builds the op for (kind, attrs) (used by the trace importer), and the
// type helpers convert between MLIR tensor types and graph::TensorType.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Graph/ShapeRules.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace tg::ir {

struct OpDescription {
  graph::OpKind kind;
  graph::OpAttrs attrs;
};

/// Describes a tg compute op; empty for structural ops (tg.fusion, tg.yield) and foreign ops.
std::optional<OpDescription> describeOp(mlir::Operation* op);

/// Builds the tg op for `kind`/`attrs` on `operands` and returns its result (null for Check,
/// which has none). The caller has already checked the combination with
/// graph::inferResultType; `resultType` is its answer.
mlir::Value createOp(mlir::OpBuilder& builder, mlir::Location loc, graph::OpKind kind,
                     const graph::OpAttrs& attrs, mlir::ValueRange operands,
                     const graph::TensorType& resultType);
/// The same with the result's MLIR type (one with dynamic dims: SymbolicTypes.h).
mlir::Value createOp(mlir::OpBuilder& builder, mlir::Location loc, graph::OpKind kind,
                     const graph::OpAttrs& attrs, mlir::ValueRange operands, mlir::RankedTensorType resultType);

/// MLIR element type <-> DType (f32, f16, bf16, i32, i1). dtypeOf is empty for other types.
std::optional<DType> dtypeOf(mlir::Type elementType);
mlir::Type elementTypeOf(mlir::MLIRContext* context, DType dtype);
/// tensor<...> <-> graph::TensorType; typeOf is empty unless static-shaped, with a tg dtype, no
/// encoding and at most kMaxTensorBytes (tg/Support/DType.h): a tg tensor.
std::optional<graph::TensorType> typeOf(mlir::Type type);
/// Why `type` is not a tg tensor, for a diagnostic ("tensor<*xf32> is not statically shaped");
/// empty if it is one.
std::string whyNotTgTensor(mlir::Type type);
mlir::RankedTensorType tensorTypeOf(mlir::MLIRContext* context, const graph::TensorType& type);

}  // namespace tg::ir
