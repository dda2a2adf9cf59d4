//===- SymbolicInference.h - Result types over dynamic dims, from the shape rules ===//
//
// A pass that builds an op over values with dynamic dims (SymbolicTypes.h) needs its result
// type as polynomials of the symbols. The shape rules (graph::inferResultType) speak of static
// shapes only, and every rule is a polynomial of degree at most one in each size (a reshape's
// product, a concat's sum, an extent passed through). So the rules are run at sample sizes: on
// the grid where each symbol of the function is at its lowest size (from 2) or one more, the
// result's dims fitted there (fitMultilinear), then checked at the verification sizes
// (verificationSizes: the top of each range, an odd size near the middle). One inference, any
// op kind, the rules' own errors.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Dialect/SymbolicTypes.h"
#include "tg/Graph/ShapeRules.h"

#include "mlir/IR/TypeRange.h"

#include <functional>
#include <optional>
#include <span>
#include <string>

namespace tg::ir {

/// The op's attributes at the sizes `values` of the symbols: the caller evaluates any that
/// depend on them (a broadcast's target shape).
using AttrsAtSizes = std::function<graph::OpAttrs(std::span<const int64_t> values)>;

/// The result type of an op of `kind` over `operands` (tg tensor types, static or with dynamic
/// dims over `symbols`): static when no operand uses a symbol. Empty, with the reason in
/// `error`, when a shape rule fails at some sizes in the ranges (named), an operand names a
/// symbol not in `symbols`, the function has more than 8 symbols, or a dim is no polynomial of
/// degree at most one in each symbol.
std::optional<mlir::RankedTensorType> inferSymbolicResultType(mlir::MLIRContext* context, graph::OpKind kind,
                                                              const AttrsAtSizes& attrs, mlir::TypeRange operands,
                                                              const Symbols& symbols, std::string& error);

}  // namespace tg::ir
