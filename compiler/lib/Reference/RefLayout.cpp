//===- RefLayout.cpp - Reference semantics of broadcast, reshape, transpose ===//
#include "tg/Reference/RefKernels.h"

#include <cassert>
#include <cstring>

namespace tg::ref {

using graph::OpKind;

/// Copies element inOffset(outIndex) of `x` to each element of a fresh tensor of `outShape`,
/// where the input offset is the dot product of the output multi-index with `inStrides` (one
/// stride per output dim; 0 for a broadcast dim).
static HostTensor gather(const HostTensor& x, const Shape& outShape,
                         const std::vector<int64_t>& inStrides, int64_t base = 0) {
  HostTensor out(x.dtype(), outShape);
  const size_t size = dtype_size(x.dtype());
  const int64_t n = out.numel(), rank = static_cast<int64_t>(outShape.size());
  std::vector<int64_t> index(rank, 0);
  int64_t inOffset = base;
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(out.mutableData() + i * size, x.data() + inOffset * size, size);
    // Advance the multi-index like an odometer, keeping inOffset in step.
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < outShape[d]) {
        inOffset += inStrides[d];
        break;
      }
      inOffset -= inStrides[d] * (outShape[d] - 1);
      index[d] = 0;
    }
  }
  return out;
}

HostTensor evaluateLayout(OpKind kind, const graph::OpAttrs& attrs, const HostTensor& x) {
  const std::vector<int64_t> strides = rowMajorStrides(x.shape());
  switch (kind) {
    case OpKind::Reshape:
      return x.reshaped(attrs.shape);
    case OpKind::Transpose: {
      Shape outShape;
      std::vector<int64_t> inStrides;
      for (int64_t p : attrs.perm) {
        outShape.push_back(x.shape()[p]);
        inStrides.push_back(strides[p]);
      }
      return gather(x, outShape, inStrides);
    }
    case OpKind::Broadcast: {
      std::vector<int64_t> inStrides(attrs.shape.size(), 0);
      for (size_t i = 0; i < attrs.dims.size(); ++i)
        if (x.shape()[i] != 1) inStrides[attrs.dims[i]] = strides[i];
      return gather(x, attrs.shape, inStrides);
    }
    case OpKind::Slice: {
      Shape outShape;
      std::vector<int64_t> inStrides;
      int64_t base = 0;
      for (size_t d = 0; d < strides.size(); ++d) {
        outShape.push_back((attrs.limits[d] - attrs.starts[d] + attrs.steps[d] - 1) / attrs.steps[d]);
        inStrides.push_back(strides[d] * attrs.steps[d]);
        base += attrs.starts[d] * strides[d];
      }
      return gather(x, outShape, inStrides, base);
    }
    default:
      assert(false && "not a layout op");
      return {};
  }
}

}  // namespace tg::ref
