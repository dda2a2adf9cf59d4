//===- OpKind.h - The vocabulary of tg graphs, free of MLIR ---------------===//
//
// One enumerator per operation of the tg dialect, plus the attributes an operation can carry.
// The frontend records traces in these terms, the importer turns them into tg dialect ops, the
// reference kernels evaluate them, and the dialect's verifiers share their shape rules
// (ShapeRules.h). Keeping this MLIR-free keeps MLIR headers out of the frontend's hot objects.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Support/DType.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tg::graph {

enum class OpKind : uint8_t {
  // Leaves.
  Input,
  Constant,
  // Elementwise unary.
  Neg,
  Abs,
  Exp,
  Log,
  Tanh,
  Sigmoid,
  Relu,
  Gelu,
  Sqrt,
  Rsqrt,
  Sin,
  Cos,
  Erf,
  Exp2,
  Log2,
  Floor,
  Ceil,
  Round,
  Sign,
  Silu,
  // Elementwise binary (operands of one shape and dtype).
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Maximum,
  Minimum,
  // Elementwise, other.
  Iota,    ///< no operand: element (i0, i1, ...) is i_axis (positions, computed where read)
  Concat,  ///< operands joined along `axis`: each element is one element of one operand
  Gather,  ///< x's elements at i32 indices along `axis` (an embedding lookup)
  DynamicSlice,        ///< a window of x along `axis` from a device-side i32 start
  DynamicUpdateSlice,  ///< x with an update written along `axis` from a device-side i32 start
  Clamp,
  Compare,
  Select,
  Cast,
  // Layout.
  Broadcast,
  Reshape,
  Transpose,
  Slice,
  // Reductions.
  ReduceSum,
  ReduceMax,
  ReduceMean,
  ReduceMin,
  ReduceProd,
  ArgMax,
  ArgMin,
  // Composites (decomposed before fusion).
  Softmax,
  LayerNorm,
  // Contraction.
  Matmul,
  // Side effects: an asynchronous check (no result).
  Check,
};

enum class CmpPredicate : uint8_t { EQ, NE, LT, LE, GT, GE };
enum class GeluApprox : uint8_t { Erf, Tanh };

/// Attributes of one operation. Only the fields that `kind` uses are meaningful. Every field
/// must be written by appendAttrsKey (OpKind.cpp), which keys the graph caches: a field missing
/// there would let two different graphs share a compiled program.
struct OpAttrs {
  std::vector<int64_t> axes;  ///< Reductions: reduced axes, ascending, non-negative (ArgMax/ArgMin: one).
  std::vector<int64_t> perm;  ///< Transpose: result dim i is operand dim perm[i].
  std::vector<int64_t> dims;  ///< Broadcast: operand dim i maps to result dim dims[i].
  Shape shape;                ///< Broadcast/Reshape/Iota/DynamicSlice: the result shape.
  std::vector<int64_t> starts;  ///< Slice: per dim, the first element taken (DynamicUpdateSlice:
                                ///< where the update goes in the dims but `axis`),
  std::vector<int64_t> limits;  ///< the end (exclusive; start <= limit <= extent),
  std::vector<int64_t> steps;   ///< and the step (>= 1).
  bool keepDims = false;      ///< Reductions: keep reduced axes with extent 1.
  CmpPredicate predicate = CmpPredicate::EQ;
  DType dtype = DType::F32;   ///< Cast: the target element type; Iota, Input, Constant: theirs.
  GeluApprox gelu = GeluApprox::Tanh;
  int64_t axis = -1;          ///< Softmax, Iota, Concat, Gather, Dynamic*: the axis (>= 0 once verified).
  double epsilon = 1e-5;      ///< LayerNorm.
  bool hasWeight = false;     ///< LayerNorm: a scale operand follows the input.
  bool hasBias = false;       ///< LayerNorm: a shift operand follows (after the weight if any).
  bool transposeA = false;    ///< Matmul: use the transpose of the last two dims of A.
  bool transposeB = false;    ///< Matmul: likewise for B.
  int64_t checkId = 0;        ///< Check: the site (message, location) registered by tg::check;
                              ///< Gather, Dynamic*: the site an out-of-range index fails.
};

/// Appends every field of `attrs` to `key`, unambiguously (the graph caches' keys).
void appendAttrsKey(std::string& key, const OpAttrs& attrs);

/// The tg dialect mnemonic of an op kind ("add", "reduce_sum", ...).
std::string_view opName(OpKind kind);
/// The mnemonic of a comparison predicate ("lt", ...), and its inverse.
std::string_view predicateName(CmpPredicate pred);
std::optional<CmpPredicate> parsePredicate(std::string_view name);

bool isUnaryElementwise(OpKind kind);
bool isBinaryElementwise(OpKind kind);
/// Unary, binary, clamp, compare, select and cast: one output element from one element of each
/// input.
bool isElementwise(OpKind kind);
/// Concat, gather, dynamic_slice, dynamic_update_slice: elementwise over their result, but each
/// element reads its operands from memory at an index it computes (not the element's own).
bool isIndexedRead(OpKind kind);
/// Gather, dynamic_slice, dynamic_update_slice: an index read from a tensor at run time, checked
/// (an index out of range fails check site `checkId` and is clamped: never read out of bounds).
bool isDeviceIndexed(OpKind kind);
/// reduce_sum/max/mean/min/prod and argmax/argmin.
bool isReduction(OpKind kind);
/// argmax/argmin: the i32 index of the extreme along their one axis.
bool isArgReduction(OpKind kind);

}  // namespace tg::graph
