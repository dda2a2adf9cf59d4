//===- ShapeRules.cpp - Result types of tg ops, and why an op is invalid --===//
#include "tg/Graph/ShapeRules.h"

#include <algorithm>
#include <limits>
#include <sstream>

namespace tg::graph {

std::string TensorType::str() const {
  return std::string(dtype_name(dtype)) + format_shape(shape);
}

std::optional<Shape> broadcastShapes(const Shape& a, const Shape& b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::vector<int64_t> trailingDims(int64_t operandRank, int64_t resultRank) {
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < operandRank; ++i) dims.push_back(resultRank - operandRank + i);
  return dims;
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

size_t expectedOperandCount(OpKind kind, const OpAttrs& attrs) {
  if (kind == OpKind::Input || kind == OpKind::Constant || kind == OpKind::Iota || kind == OpKind::Concat)
    return 0;
  if (isUnaryElementwise(kind) || kind == OpKind::Cast || kind == OpKind::Broadcast ||
      kind == OpKind::Reshape || kind == OpKind::Transpose || kind == OpKind::Slice || isReduction(kind) ||
      kind == OpKind::Softmax || kind == OpKind::Check)
    return 1;
  if (kind == OpKind::LayerNorm) return 1 + attrs.hasWeight + attrs.hasBias;
  if (kind == OpKind::Select || kind == OpKind::Clamp || kind == OpKind::DynamicUpdateSlice) return 3;
  return 2;  // binary, compare, matmul
}

namespace {

std::string join(const std::vector<int64_t>& v) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << ']';
  return os.str();
}

/// Which element types an elementwise op accepts.
enum class Accepts { Float, Numeric, Any };

Accepts acceptedTypes(OpKind kind) {
  switch (kind) {
    case OpKind::Neg:
    case OpKind::Abs:
    case OpKind::Relu:
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Div:
    case OpKind::Maximum:
    case OpKind::Minimum:
    case OpKind::Sign:
    case OpKind::Clamp:
      return Accepts::Numeric;
    case OpKind::Compare:
    case OpKind::Cast:
      return Accepts::Any;
    default:
      return Accepts::Float;
  }
}

std::string checkDType(OpKind kind, DType dtype) {
  switch (acceptedTypes(kind)) {
    case Accepts::Float:
      if (!is_floating(dtype))
        return std::string("needs a floating-point operand (f32, f16 or bf16), got ") +
               dtype_name(dtype);
      return {};
    case Accepts::Numeric:
      if (dtype == DType::Bool) return "needs a numeric operand (f32, f16, bf16 or i32), got bool";
      return {};
    case Accepts::Any:
      return {};
  }
  return {};
}

std::string checkSameTypes(std::span<const TensorType> ops) {
  for (size_t i = 1; i < ops.size(); ++i) {
    if (ops[i].dtype != ops[0].dtype)
      return "operands have different dtypes: " + ops[0].str() + " vs " + ops[i].str();
    if (ops[i].shape != ops[0].shape)
      return "operands have different shapes: " + ops[0].str() + " vs " + ops[i].str();
  }
  return {};
}

std::string inferBroadcast(const OpAttrs& attrs, const TensorType& in, TensorType& result) {
  const Shape& target = attrs.shape;
  if (attrs.dims.size() != in.shape.size())
    return "broadcast dims " + join(attrs.dims) + " must have one entry per operand dim (" +
           std::to_string(in.shape.size()) + ")";
  for (size_t i = 0; i < attrs.dims.size(); ++i) {
    int64_t d = attrs.dims[i];
    if (d < 0 || d >= static_cast<int64_t>(target.size()))
      return "broadcast dim " + std::to_string(d) + " is out of range for result rank " +
             std::to_string(target.size());
    if (i > 0 && d <= attrs.dims[i - 1])
      return "broadcast dims " + join(attrs.dims) + " must be strictly increasing";
    if (in.shape[i] != 1 && in.shape[i] != target[d])
      return "operand dim " + std::to_string(i) + " of size " + std::to_string(in.shape[i]) +
             " cannot broadcast to result dim " + std::to_string(d) + " of size " +
             std::to_string(target[d]);
  }
  result = {in.dtype, target};
  return {};
}

std::string inferSlice(const OpAttrs& attrs, const TensorType& in, TensorType& result) {
  const size_t rank = in.shape.size();
  if (attrs.starts.size() != rank || attrs.limits.size() != rank || attrs.steps.size() != rank)
    return "starts " + join(attrs.starts) + ", limits " + join(attrs.limits) + " and steps " +
           join(attrs.steps) + " must have one entry per dim of " + in.str();
  Shape out;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t start = attrs.starts[d], limit = attrs.limits[d], step = attrs.steps[d];
    if (step < 1) return "step " + std::to_string(step) + " of dim " + std::to_string(d) + " must be at least 1";
    if (start < 0 || start > limit || limit > in.shape[d])
      return "dim " + std::to_string(d) + " of " + in.str() + " cannot be sliced from " + std::to_string(start) +
             " to " + std::to_string(limit) + " (need 0 <= start <= limit <= " + std::to_string(in.shape[d]) + ")";
    out.push_back((limit - start + step - 1) / step);
  }
  result = {in.dtype, out};
  return {};
}

std::string inferReduction(OpKind kind, const OpAttrs& attrs, const TensorType& in,
                           TensorType& result) {
  int64_t rank = static_cast<int64_t>(in.shape.size());
  if (kind == OpKind::ReduceMean && !is_floating(in.dtype))
    return std::string("needs a floating-point operand, got ") + dtype_name(in.dtype);
  if (in.dtype == DType::Bool) return "cannot reduce a bool tensor";
  for (size_t i = 0; i < attrs.axes.size(); ++i) {
    int64_t a = attrs.axes[i];
    if (a < 0 || a >= rank)
      return "axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank);
    if (i > 0 && a <= attrs.axes[i - 1])
      return "axes " + join(attrs.axes) + " must be strictly increasing (no repeats)";
  }
  if (isArgReduction(kind)) {
    if (attrs.axes.size() != 1)
      return "takes exactly one axis, got " + join(attrs.axes);
    const int64_t extent = in.shape[attrs.axes[0]];
    if (extent == 0)
      return "axis " + std::to_string(attrs.axes[0]) + " of " + in.str() +
             " is empty: there is no index to return";
    if (extent > std::numeric_limits<int32_t>::max())
      return "axis " + std::to_string(attrs.axes[0]) + " of " + in.str() +
             " is longer than an i32 index can count";
  }
  Shape out;
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = std::find(attrs.axes.begin(), attrs.axes.end(), d) != attrs.axes.end();
    if (!reduced)
      out.push_back(in.shape[d]);
    else if (attrs.keepDims)
      out.push_back(1);
  }
  result = {isArgReduction(kind) ? DType::I32 : in.dtype, out};
  return {};
}

std::string inferMatmul(const OpAttrs& attrs, const TensorType& a, const TensorType& b,
                        TensorType& result) {
  if (!is_floating(a.dtype))
    return std::string("needs floating-point operands, got ") + dtype_name(a.dtype);
  if (a.dtype != b.dtype) return "operands have different dtypes: " + a.str() + " vs " + b.str();
  size_t ra = a.shape.size(), rb = b.shape.size();
  if (ra < 2 || rb < 2)
    return "operands must have rank 2 or more, got " + a.str() + " and " + b.str();
  int64_t m = attrs.transposeA ? a.shape[ra - 1] : a.shape[ra - 2];
  int64_t ka = attrs.transposeA ? a.shape[ra - 2] : a.shape[ra - 1];
  int64_t kb = attrs.transposeB ? b.shape[rb - 1] : b.shape[rb - 2];
  int64_t n = attrs.transposeB ? b.shape[rb - 2] : b.shape[rb - 1];
  if (ka != kb)
    return "contraction dims differ: " + a.str() + (attrs.transposeA ? "^T" : "") + " @ " +
           b.str() + (attrs.transposeB ? "^T" : "") + " (K = " + std::to_string(ka) + " vs " +
           std::to_string(kb) + ")";
  Shape batchA(a.shape.begin(), a.shape.end() - 2), batchB(b.shape.begin(), b.shape.end() - 2);
  Shape batch;
  if (ra == 2)
    batch = batchB;
  else if (rb == 2 || batchA == batchB)
    batch = batchA;
  else
    return "batch dims differ: " + a.str() + " vs " + b.str() +
           " (they must be equal, or one operand must be rank 2)";
  batch.push_back(m);
  batch.push_back(n);
  result = {a.dtype, batch};
  return {};
}

std::string inferLayerNorm(const OpAttrs& attrs, std::span<const TensorType> ops,
                           TensorType& result) {
  const TensorType& x = ops[0];
  if (!is_floating(x.dtype))
    return std::string("needs a floating-point operand, got ") + dtype_name(x.dtype);
  if (x.shape.empty()) return "needs an operand of rank 1 or more";
  if (!(attrs.epsilon >= 0)) return "epsilon must be non-negative";
  Shape affine{x.shape.back()};
  for (size_t i = 1; i < ops.size(); ++i) {
    const char* what = (i == 1 && attrs.hasWeight) ? "weight" : "bias";
    if (ops[i].dtype != x.dtype || ops[i].shape != affine)
      return std::string(what) + " must be " + TensorType{x.dtype, affine}.str() +
             " (the normalised last dim), got " + ops[i].str();
  }
  result = x;
  return {};
}

/// Gather, dynamic_slice and dynamic_update_slice: i32 indices, an axis of the data operand,
/// and a check site for indices out of range.
std::string inferIndexed(OpKind kind, const OpAttrs& attrs, std::span<const TensorType> ops,
                         TensorType& result) {
  const TensorType& x = ops[0];
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (attrs.axis < 0 || attrs.axis >= rank)
    return "axis " + std::to_string(attrs.axis) + " is out of range for rank " + std::to_string(rank);
  if (attrs.checkId < 1) return "needs the id (>= 1) of the check site an index out of range fails";
  const auto axis = static_cast<size_t>(attrs.axis);
  const TensorType& index = ops[kind == OpKind::DynamicUpdateSlice ? 2 : 1];
  if (index.dtype != DType::I32)
    return std::string(kind == OpKind::Gather ? "indices" : "the start") + " must be i32, got " + index.str();
  if (kind == OpKind::Gather) {
    Shape out(x.shape.begin(), x.shape.begin() + attrs.axis);
    out.insert(out.end(), index.shape.begin(), index.shape.end());
    out.insert(out.end(), x.shape.begin() + attrs.axis + 1, x.shape.end());
    if (x.shape[axis] == 0 && shape_numel(index.shape) > 0)
      return "gathers from axis " + std::to_string(attrs.axis) + " of " + x.str() + ", which is empty";
    result = {x.dtype, out};
    return {};
  }
  if (shape_numel(index.shape) != 1) return "the start must be one i32 element, got " + index.str();
  if (kind == OpKind::DynamicSlice) {
    bool fits = attrs.shape.size() == x.shape.size();
    for (size_t d = 0; fits && d < x.shape.size(); ++d)
      fits = d == axis ? attrs.shape[d] >= 0 && attrs.shape[d] <= x.shape[d] : attrs.shape[d] == x.shape[d];
    if (!fits)
      return "the window " + format_shape(attrs.shape) + " must match " + x.str() +
             " in every dim but the axis " + std::to_string(attrs.axis) + ", and fit in it";
    result = {x.dtype, attrs.shape};
    return {};
  }
  const TensorType& update = ops[1];
  if (update.dtype != x.dtype || update.shape.size() != x.shape.size())
    return "the update " + update.str() + " must have the dtype and rank of " + x.str();
  if (attrs.starts.size() != x.shape.size())
    return "needs " + std::to_string(rank) + " static offsets, got " + join(attrs.starts);
  for (size_t d = 0; d < x.shape.size(); ++d) {
    const int64_t at = d == axis ? 0 : attrs.starts[d];
    if (d == axis && attrs.starts[d] != 0)
      return "the static offset of the axis " + std::to_string(attrs.axis) + " must be 0 (the start tensor gives it)";
    if (at < 0 || update.shape[d] > x.shape[d] - at)
      return "the update " + update.str() + " at offsets " + join(attrs.starts) + " does not fit in " + x.str();
  }
  result = x;
  return {};
}

/// inferResultType without the size limit on the result.
std::string inferUnbounded(OpKind kind, const OpAttrs& attrs,
                           std::span<const TensorType> operands, TensorType& result) {

  if (kind == OpKind::Input || kind == OpKind::Constant) {
    result = {attrs.dtype, attrs.shape};
    return {};
  }
  if (kind == OpKind::Concat) {
    const TensorType& first = operands[0];
    const int64_t rank = static_cast<int64_t>(first.shape.size());
    if (attrs.axis < 0 || attrs.axis >= rank)
      return "axis " + std::to_string(attrs.axis) + " is out of range for rank " + std::to_string(rank);
    Shape out = first.shape;
    out[attrs.axis] = 0;
    for (const TensorType& t : operands) {
      if (t.dtype != first.dtype) return "operands have different dtypes: " + first.str() + " vs " + t.str();
      bool fits = t.shape.size() == first.shape.size();
      for (int64_t d = 0; fits && d < rank; ++d) fits = d == attrs.axis || t.shape[d] == first.shape[d];
      if (!fits)
        return "operands " + first.str() + " and " + t.str() + " differ in a dim other than the axis " +
               std::to_string(attrs.axis);
      out[attrs.axis] += t.shape[attrs.axis];  // each within the size limit: no overflow
    }
    result = {first.dtype, out};
    return {};
  }
  if (isDeviceIndexed(kind)) return inferIndexed(kind, attrs, operands, result);
  if (kind == OpKind::Iota) {
    if (attrs.dtype == DType::Bool) return "needs a numeric result (f32, f16, bf16 or i32), got bool";
    const int64_t rank = static_cast<int64_t>(attrs.shape.size());
    if (attrs.axis < 0 || attrs.axis >= rank)
      return "axis " + std::to_string(attrs.axis) + " is out of range for rank " + std::to_string(rank);
    for (int64_t d : attrs.shape)
      if (d < 0) return "shape " + format_shape(attrs.shape) + " has a negative extent";
    result = {attrs.dtype, attrs.shape};
    return {};
  }
  if (isUnaryElementwise(kind)) {
    if (std::string err = checkDType(kind, operands[0].dtype); !err.empty()) return err;
    result = operands[0];
    return {};
  }
  if (isBinaryElementwise(kind) || kind == OpKind::Compare || kind == OpKind::Clamp) {
    if (std::string err = checkSameTypes(operands); !err.empty()) return err;
    if (std::string err = checkDType(kind, operands[0].dtype); !err.empty()) return err;
    result = operands[0];
    if (kind == OpKind::Compare) result.dtype = DType::Bool;
    return {};
  }
  switch (kind) {
    case OpKind::Select: {
      const TensorType &c = operands[0], &a = operands[1];
      if (c.dtype != DType::Bool)
        return "condition must be a bool tensor, got " + c.str();
      if (std::string err = checkSameTypes(operands.subspan(1)); !err.empty()) return err;
      if (c.shape != a.shape)
        return "condition shape " + format_shape(c.shape) + " differs from value shape " +
               format_shape(a.shape);
      result = a;
      return {};
    }
    case OpKind::Cast:
      result = {attrs.dtype, operands[0].shape};
      return {};
    case OpKind::Broadcast:
      return inferBroadcast(attrs, operands[0], result);
    case OpKind::Reshape: {
      // The operand is within the size limit; the target may overflow int64.
      std::optional<int64_t> target = checked_numel(attrs.shape);
      if (target != shape_numel(operands[0].shape))
        return "cannot reshape " + operands[0].str() + " (" +
               std::to_string(shape_numel(operands[0].shape)) + " elements) to " +
               format_shape(attrs.shape) + " (" +
               (target ? std::to_string(*target) : std::string("more than 2^63")) +
               " elements)";
      result = {operands[0].dtype, attrs.shape};
      return {};
    }
    case OpKind::Transpose: {
      const Shape& in = operands[0].shape;
      std::vector<int64_t> sorted = attrs.perm;
      std::sort(sorted.begin(), sorted.end());
      bool isPerm = sorted.size() == in.size();
      for (size_t i = 0; isPerm && i < sorted.size(); ++i) isPerm = sorted[i] == (int64_t)i;
      if (!isPerm)
        return "perm " + join(attrs.perm) + " is not a permutation of the " +
               std::to_string(in.size()) + " dims of " + operands[0].str();
      Shape out;
      for (int64_t p : attrs.perm) out.push_back(in[p]);
      result = {operands[0].dtype, out};
      return {};
    }
    case OpKind::Slice:
      return inferSlice(attrs, operands[0], result);
    case OpKind::ReduceSum:
    case OpKind::ReduceMax:
    case OpKind::ReduceMean:
    case OpKind::ReduceMin:
    case OpKind::ReduceProd:
    case OpKind::ArgMax:
    case OpKind::ArgMin:
      return inferReduction(kind, attrs, operands[0], result);
    case OpKind::Softmax: {
      if (!is_floating(operands[0].dtype))
        return std::string("needs a floating-point operand, got ") +
               dtype_name(operands[0].dtype);
      int64_t rank = static_cast<int64_t>(operands[0].shape.size());
      if (attrs.axis < 0 || attrs.axis >= rank)
        return "axis " + std::to_string(attrs.axis) + " is out of range for rank " +
               std::to_string(rank);
      result = operands[0];
      return {};
    }
    case OpKind::LayerNorm:
      return inferLayerNorm(attrs, operands, result);
    case OpKind::Matmul:
      return inferMatmul(attrs, operands[0], operands[1], result);
    case OpKind::Check:  // no result; `result` is a placeholder
      if (operands[0].dtype != DType::Bool)
        return "the condition must be a bool tensor, got " + operands[0].str();
      result = {DType::Bool, {}};
      return {};
    default:
      return "unknown op kind";
  }
}

}  // namespace

std::string inferResultType(OpKind kind, const OpAttrs& attrs,
                            std::span<const TensorType> operands, TensorType& result) {
  size_t expected = expectedOperandCount(kind, attrs);
  if (kind == OpKind::Concat) {
    if (operands.empty()) return "needs at least one operand";
  } else if (operands.size() != expected)
    return "expects " + std::to_string(expected) + " operands, got " +
           std::to_string(operands.size());
  for (const TensorType& t : operands) {
    for (int64_t d : t.shape)
      if (d < 0) return "operand " + t.str() + " has a negative extent";
    if (std::string err = tensor_size_error(t.dtype, t.shape); !err.empty())
      return "operand " + err;
  }
  if (kind == OpKind::Reshape)
    for (int64_t d : attrs.shape)
      if (d < 0) return "reshape target " + format_shape(attrs.shape) + " has a negative extent";
  TensorType inferred;
  if (std::string err = inferUnbounded(kind, attrs, operands, inferred); !err.empty()) return err;
  // Broadcast, reshape, matmul and creation ops can name shapes far larger than their operands.
  if (std::string err = tensor_size_error(inferred.dtype, inferred.shape); !err.empty())
    return "the result " + err;
  result = std::move(inferred);
  return {};
}

}  // namespace tg::graph
