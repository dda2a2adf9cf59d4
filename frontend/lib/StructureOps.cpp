//===- StructureOps.cpp - Layout, reductions, composites and matmul -------===//
#include "tg/Frontend/Dispatch.h"
#include "tg/Graph/ShapeRules.h"

#include <algorithm>
#include <numeric>

namespace tg {

using detail::apply;
using detail::fail;
using graph::OpKind;

Tensor broadcast_to(const Tensor& x, Shape shape, Loc loc) {
  if (!x.defined()) fail("broadcast", "operand is an undefined tensor", loc);
  std::optional<Shape> joint = graph::broadcastShapes(x.shape(), shape);
  if (!joint || *joint != shape)
    fail("broadcast", "cannot broadcast " + format_shape(x.shape()) + " to " + format_shape(shape),
         loc);
  return detail::broadcastTo(x, shape, "broadcast", loc);
}

Tensor reshape(const Tensor& x, Shape shape, Loc loc) {
  if (!x.defined()) fail("reshape", "operand is an undefined tensor", loc);
  int64_t inferred = -1;
  std::optional<int64_t> known = 1;  // empty once the product of the known extents overflows
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (inferred >= 0) fail("reshape", "only one extent of " + format_shape(shape) + " may be -1", loc);
      inferred = static_cast<int64_t>(i);
    } else if (shape[i] < 0) {
      fail("reshape", "target " + format_shape(shape) + " has a negative extent", loc);
    } else {
      if (known) known = checked_mul(*known, shape[i]);
    }
  }
  if (inferred >= 0) {
    if (!known || *known == 0 || x.numel() % *known != 0)
      fail("reshape", "cannot infer the -1 extent of " + format_shape(shape) + " for " +
                          std::to_string(x.numel()) + " elements", loc);
    shape[inferred] = x.numel() / *known;
  }  // else the shape rules compare the element counts, overflow-checked
  graph::OpAttrs attrs;
  attrs.shape = std::move(shape);
  return apply(OpKind::Reshape, attrs, {x}, loc);
}

Tensor transpose(const Tensor& x, std::vector<int64_t> perm, Loc loc) {
  if (!x.defined()) fail("transpose", "operand is an undefined tensor", loc);
  for (int64_t& p : perm)
    if (p < 0) p += x.rank();
  graph::OpAttrs attrs;
  attrs.perm = std::move(perm);
  return apply(OpKind::Transpose, attrs, {x}, loc);
}

Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1, Loc loc) {
  if (!x.defined()) fail("transpose", "operand is an undefined tensor", loc);
  std::optional<int64_t> d0 = graph::normalizeAxis(dim0, x.rank());
  std::optional<int64_t> d1 = graph::normalizeAxis(dim1, x.rank());
  if (!d0 || !d1)
    fail("transpose", "dims " + std::to_string(dim0) + " and " + std::to_string(dim1) +
                          " must be in range for rank " + std::to_string(x.rank()), loc);
  std::vector<int64_t> perm(x.rank());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[*d0], perm[*d1]);
  return transpose(x, perm, loc);
}

/// `axis` of `x` counted from 0 (negative: from the end), or a tg::Error naming `op`.
Tensor slice(const Tensor& x, int64_t axis, int64_t start, int64_t stop, int64_t step, Loc loc) {
  if (!x.defined()) fail("slice", "operand is an undefined tensor", loc);
  const std::optional<int64_t> a = detail::axisOf(x, axis, "slice", loc);
  if (step < 1) fail("slice", "step " + std::to_string(step) + " must be at least 1", loc);
  const int64_t extent = x.shape()[*a];
  auto clampIndex = [extent](int64_t i) {  // Python's rules: negative from the end, then clamped
    if (i < 0) i = i < -extent ? 0 : i + extent;
    return std::min(i, extent);
  };
  const int64_t begin = clampIndex(start), end = std::max(begin, clampIndex(stop));
  graph::OpAttrs attrs;
  attrs.starts.assign(x.rank(), 0);
  attrs.limits = x.shape();
  attrs.steps.assign(x.rank(), 1);
  attrs.starts[*a] = begin;
  attrs.limits[*a] = end;
  attrs.steps[*a] = step;
  return apply(OpKind::Slice, attrs, {x}, loc);
}

Tensor narrow(const Tensor& x, int64_t axis, int64_t start, int64_t length, Loc loc) {
  if (!x.defined()) fail("slice", "operand is an undefined tensor", loc);
  const std::optional<int64_t> a = detail::axisOf(x, axis, "slice", loc);
  const int64_t extent = x.shape()[*a];
  if (start < 0 || length < 0 || start > extent || length > extent - start)
    fail("slice", "narrow(" + std::to_string(start) + ", " + std::to_string(length) + ") does not fit dim " +
                      std::to_string(*a) + " of extent " + std::to_string(extent), loc);
  return slice(x, *a, start, start + length, 1, loc);
}

std::vector<Tensor> split(const Tensor& x, std::vector<int64_t> sizes, int64_t axis, Loc loc) {
  if (!x.defined()) fail("slice", "operand is an undefined tensor", loc);
  const std::optional<int64_t> a = detail::axisOf(x, axis, "slice", loc);
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) fail("slice", "split sizes must not be negative", loc);
    total += s;
    if (total > x.shape()[*a]) break;
  }
  if (total != x.shape()[*a])
    fail("slice", "split sizes add up to " + std::to_string(total) + ", not the extent " +
                      std::to_string(x.shape()[*a]) + " of dim " + std::to_string(*a), loc);
  std::vector<Tensor> pieces;
  int64_t at = 0;
  for (int64_t s : sizes) {
    pieces.push_back(slice(x, *a, at, at + s, 1, loc));
    at += s;
  }
  return pieces;
}

Tensor concat(const std::vector<Tensor>& tensors, int64_t axis, Loc loc) {
  if (tensors.empty()) fail("concat", "needs at least one tensor", loc);
  for (const Tensor& t : tensors)
    if (!t.defined()) fail("concat", "operand is an undefined tensor", loc);
  const std::optional<int64_t> a = detail::axisOf(tensors[0], axis, "concat", loc);
  graph::OpAttrs attrs;
  attrs.axis = *a;
  return apply(OpKind::Concat, attrs, tensors, loc);
}

std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t axis, Loc loc) {
  if (!x.defined()) fail("slice", "operand is an undefined tensor", loc);
  if (chunks < 1) fail("slice", "chunk count " + std::to_string(chunks) + " must be at least 1", loc);
  const std::optional<int64_t> a = detail::axisOf(x, axis, "slice", loc);
  const int64_t extent = x.shape()[*a], size = (extent + chunks - 1) / chunks;
  std::vector<int64_t> sizes;
  for (int64_t at = 0; at < extent; at += size) sizes.push_back(std::min(size, extent - at));
  if (sizes.empty()) sizes.push_back(0);
  return split(x, sizes, *a, loc);
}

static Tensor reduce(OpKind kind, const Tensor& x, std::vector<int64_t> axes, bool keepdims,
                     const Loc& loc) {
  if (!x.defined()) fail(graph::opName(kind), "operand is an undefined tensor", loc);
  if (axes.empty()) {
    axes.resize(x.rank());
    std::iota(axes.begin(), axes.end(), 0);
  }
  graph::OpAttrs attrs;
  attrs.axes = detail::normalizeAxes(std::move(axes), x.rank(), graph::opName(kind), loc);
  attrs.keepDims = keepdims;
  return apply(kind, attrs, {x}, loc);
}

Tensor sum(const Tensor& x, std::vector<int64_t> axes, bool keepdims, Loc loc) {
  return reduce(OpKind::ReduceSum, x, std::move(axes), keepdims, loc);
}
Tensor max(const Tensor& x, std::vector<int64_t> axes, bool keepdims, Loc loc) {
  return reduce(OpKind::ReduceMax, x, std::move(axes), keepdims, loc);
}
Tensor mean(const Tensor& x, std::vector<int64_t> axes, bool keepdims, Loc loc) {
  return reduce(OpKind::ReduceMean, x, std::move(axes), keepdims, loc);
}

Tensor min(const Tensor& x, std::vector<int64_t> axes, bool keepdims, Loc loc) {
  return reduce(OpKind::ReduceMin, x, std::move(axes), keepdims, loc);
}
Tensor prod(const Tensor& x, std::vector<int64_t> axes, bool keepdims, Loc loc) {
  return reduce(OpKind::ReduceProd, x, std::move(axes), keepdims, loc);
}

static Tensor argReduce(OpKind kind, const Tensor& x, int64_t axis, bool keepdims, const Loc& loc) {
  if (!x.defined()) fail(graph::opName(kind), "operand is an undefined tensor", loc);
  const std::optional<int64_t> a = detail::axisOf(x, axis, graph::opName(kind), loc);
  graph::OpAttrs attrs;
  attrs.axes = {*a};
  attrs.keepDims = keepdims;
  return apply(kind, attrs, {x}, loc);
}

Tensor argmax(const Tensor& x, int64_t axis, bool keepdims, Loc loc) {
  return argReduce(OpKind::ArgMax, x, axis, keepdims, loc);
}
Tensor argmin(const Tensor& x, int64_t axis, bool keepdims, Loc loc) {
  return argReduce(OpKind::ArgMin, x, axis, keepdims, loc);
}
Tensor argmax(const Tensor& x, Loc loc) {
  if (!x.defined()) fail("argmax", "operand is an undefined tensor", loc);
  return argReduce(OpKind::ArgMax, reshape(x, {x.numel()}, loc), 0, false, loc);
}
Tensor argmin(const Tensor& x, Loc loc) {
  if (!x.defined()) fail("argmin", "operand is an undefined tensor", loc);
  return argReduce(OpKind::ArgMin, reshape(x, {x.numel()}, loc), 0, false, loc);
}

Tensor softmax(const Tensor& x, int64_t axis, Loc loc) {
  if (!x.defined()) fail("softmax", "operand is an undefined tensor", loc);
  std::optional<int64_t> a = graph::normalizeAxis(axis, x.rank());
  if (!a)
    fail("softmax", "axis " + std::to_string(axis) + " is out of range for rank " +
                        std::to_string(x.rank()), loc);
  graph::OpAttrs attrs;
  attrs.axis = *a;
  return apply(OpKind::Softmax, attrs, {x}, loc);
}

Tensor layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double epsilon,
                  Loc loc) {
  graph::OpAttrs attrs;
  attrs.epsilon = epsilon;
  std::vector<Tensor> operands{x};
  if (weight.defined()) {
    attrs.hasWeight = true;
    operands.push_back(weight);
  }
  if (bias.defined()) {
    attrs.hasBias = true;
    operands.push_back(bias);
  }
  return apply(OpKind::LayerNorm, attrs, operands, loc);
}

Tensor layer_norm(const Tensor& x, double epsilon, Loc loc) {
  return layer_norm(x, Tensor(), Tensor(), epsilon, loc);
}

Tensor matmul(const Tensor& a, const Tensor& b, Loc loc) {
  if (!a.defined() || !b.defined()) fail("matmul", "operand is an undefined tensor", loc);
  if (a.rank() < 2 || b.rank() < 2)
    fail("matmul", "operands must have rank 2 or more, got " + format_shape(a.shape()) +
                       " and " + format_shape(b.shape()), loc);
  Tensor lhs = a, rhs = b;
  // Batch dims broadcast numpy-style, except that a rank-2 operand stays shared (no copy).
  if (a.rank() > 2 && b.rank() > 2) {
    Shape batchA(a.shape().begin(), a.shape().end() - 2);
    Shape batchB(b.shape().begin(), b.shape().end() - 2);
    std::optional<Shape> batch = graph::broadcastShapes(batchA, batchB);
    if (!batch)
      fail("matmul", "batch dims " + format_shape(batchA) + " and " + format_shape(batchB) +
                         " do not broadcast", loc);
    auto withBatch = [&](const Tensor& t) {
      Shape s = *batch;
      s.push_back(t.shape()[t.rank() - 2]);
      s.push_back(t.shape()[t.rank() - 1]);
      return detail::broadcastTo(t, s, "matmul", loc);
    };
    lhs = withBatch(a);
    rhs = withBatch(b);
  }
  return apply(OpKind::Matmul, {}, {lhs, rhs}, loc);
}

}  // namespace tg
