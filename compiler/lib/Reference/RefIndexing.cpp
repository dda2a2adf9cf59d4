//===- RefIndexing.cpp - gather, dynamic_slice, dynamic_update_slice ------===//
//
// Indices read from tensors. One out of range records a failure of the op's check site
// (CheckSites: raised at the host's next sync point, as a failed tg::check) and is clamped
// into range, as the kernels do: both read the same element, never outside the tensor.
//
//===----------------------------------------------------------------------===//
#include "tg/Reference/RefKernels.h"
#include "tg/Support/CheckSites.h"

#include <algorithm>
#include <cstring>

namespace tg::ref {

using graph::OpKind;

namespace {

/// `value` clamped to [0, bound]; a value outside fails check `checkId`.
int64_t checkedIndex(int64_t value, int64_t bound, int64_t checkId) {
  if (value >= 0 && value <= bound) return value;
  CheckSites::instance().fail(checkId);
  return std::clamp<int64_t>(value, 0, std::max<int64_t>(bound, 0));
}

/// Elements before, along and after `axis` of `shape`.
struct AxisSplit {
  int64_t outer = 1, extent = 1, inner = 1;
};
AxisSplit splitAt(const Shape& shape, size_t axis) {
  AxisSplit s;
  for (size_t d = 0; d < axis; ++d) s.outer *= shape[d];
  s.extent = shape[axis];
  for (size_t d = axis + 1; d < shape.size(); ++d) s.inner *= shape[d];
  return s;
}

HostTensor gather(const graph::OpAttrs& attrs, const HostTensor& x, const HostTensor& indices) {
  const auto axis = static_cast<size_t>(attrs.axis);
  Shape shape(x.shape().begin(), x.shape().begin() + attrs.axis);
  shape.insert(shape.end(), indices.shape().begin(), indices.shape().end());
  shape.insert(shape.end(), x.shape().begin() + attrs.axis + 1, x.shape().end());
  HostTensor out(x.dtype(), shape);
  const AxisSplit s = splitAt(x.shape(), axis);
  const size_t block = static_cast<size_t>(s.inner) * dtype_size(x.dtype());
  const int64_t m = indices.numel();
  for (int64_t j = 0; j < m; ++j) {
    const int64_t at = checkedIndex(indices.intAt(j), s.extent - 1, attrs.checkId);
    for (int64_t o = 0; o < s.outer; ++o)
      std::memcpy(out.mutableData() + (o * m + j) * block, x.data() + (o * s.extent + at) * block, block);
  }
  return out;
}

HostTensor dynamicSlice(const graph::OpAttrs& attrs, const HostTensor& x, const HostTensor& start) {
  const auto axis = static_cast<size_t>(attrs.axis);
  HostTensor out(x.dtype(), attrs.shape);
  const AxisSplit s = splitAt(x.shape(), axis);
  const int64_t window = attrs.shape[axis];
  const int64_t at = checkedIndex(start.intAt(0), s.extent - window, attrs.checkId);
  const size_t block = static_cast<size_t>(s.inner) * dtype_size(x.dtype());
  for (int64_t o = 0; o < s.outer; ++o)
    std::memcpy(out.mutableData() + o * window * block, x.data() + (o * s.extent + at) * block,
                static_cast<size_t>(window) * block);
  return out;
}

HostTensor dynamicUpdateSlice(const graph::OpAttrs& attrs, const HostTensor& x, const HostTensor& update,
                              const HostTensor& start) {
  const auto axis = static_cast<size_t>(attrs.axis);
  HostTensor out(x.dtype(), x.shape());
  std::memcpy(out.mutableData(), x.data(), x.nbytes());
  std::vector<int64_t> offsets = attrs.starts;
  offsets[axis] = checkedIndex(start.intAt(0), x.shape()[axis] - update.shape()[axis], attrs.checkId);
  const std::vector<int64_t> strides = rowMajorStrides(x.shape());
  const size_t size = dtype_size(x.dtype());
  const Shape& u = update.shape();
  std::vector<int64_t> at(u.size(), 0);  // the update element's multi-index
  for (int64_t i = 0; i < update.numel(); ++i) {
    int64_t target = 0;
    for (size_t d = 0; d < u.size(); ++d) target += (at[d] + offsets[d]) * strides[d];
    std::memcpy(out.mutableData() + target * static_cast<int64_t>(size), update.data() + i * static_cast<int64_t>(size), size);
    for (size_t d = u.size(); d-- > 0;) {  // next multi-index, row-major
      if (++at[d] < u[d]) break;
      at[d] = 0;
    }
  }
  return out;
}

}  // namespace

HostTensor evaluateIndexed(OpKind kind, const graph::OpAttrs& attrs, std::span<const HostTensor> operands) {
  switch (kind) {
    case OpKind::Gather: return gather(attrs, operands[0], operands[1]);
    case OpKind::DynamicSlice: return dynamicSlice(attrs, operands[0], operands[1]);
    default: return dynamicUpdateSlice(attrs, operands[0], operands[1], operands[2]);
  }
}

}  // namespace tg::ref
