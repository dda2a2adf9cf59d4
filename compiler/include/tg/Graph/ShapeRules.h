//===- ShapeRules.h - The one definition of what shapes and dtypes ops accept ===//
//
// inferResultType() says, for any op kind, attributes and operand types, what the result type
// is or why the combination is invalid. The frontend calls it while tracing (so a shape error is
// raised at the user's line) and the tg dialect's verifiers call it too, so the two can never
// disagree. MLIR-free.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Graph/OpKind.h"

#include <optional>
#include <span>
#include <string>

namespace tg::graph {

/// The type of a tensor value: element type and static shape.
struct TensorType {
  DType dtype = DType::F32;
  Shape shape;

  bool operator==(const TensorType&) const = default;
  /// "f32[2, 3]".
  std::string str() const;
};

/// Infers the result type of `kind` applied to `operands` with `attrs`. Returns an empty string
/// and sets `result` on success; otherwise returns a message saying what is wrong (the caller
/// adds the op name and location). Input and Constant take their type from attrs.shape/dtype;
/// Check has no result (`result` is set to a placeholder bool[]).
[[nodiscard]] std::string inferResultType(OpKind kind, const OpAttrs& attrs,
                                          std::span<const TensorType> operands,
                                          TensorType& result);

/// Number of operands `kind` takes under `attrs` (LayerNorm: 1-3; Input/Constant: 0; Concat:
/// any number from 1, for which this returns 0 and inferResultType checks).
size_t expectedOperandCount(OpKind kind, const OpAttrs& attrs);

/// Numpy broadcasting of two shapes; empty if they are incompatible.
std::optional<Shape> broadcastShapes(const Shape& a, const Shape& b);
/// The broadcast dims that align an operand of `operandRank` with the trailing dims of a result
/// of `resultRank` (numpy rule): [resultRank - operandRank, ..., resultRank - 1].
std::vector<int64_t> trailingDims(int64_t operandRank, int64_t resultRank);
/// Maps a possibly negative axis into [0, rank); empty if out of range.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

}  // namespace tg::graph
