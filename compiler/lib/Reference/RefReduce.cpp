//===- RefReduce.cpp - Reference reductions, softmax and layer_norm -------===//
#include "tg/Reference/RefKernels.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace tg::ref {

using graph::OpKind;

/// Calls fn(base, stride) for every 1-D line of `shape` along `axis`: the line's elements are at
/// base + k * stride for k in [0, shape[axis]).
template <typename Fn>
static void forEachLine(const Shape& shape, int64_t axis, Fn fn) {
  int64_t inner = 1, outer = 1;
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
  const int64_t len = shape[axis];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) fn(o * len * inner + i, inner);
}

HostTensor evaluateArgReduction(OpKind kind, const graph::OpAttrs& attrs, const HostTensor& x) {
  const int64_t axis = attrs.axes.at(0);
  const int64_t len = x.shape()[axis];
  const bool isMax = kind == OpKind::ArgMax;
  Shape kept = x.shape(), finalShape;
  kept[axis] = 1;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (d != axis || attrs.keepDims) finalShape.push_back(kept[d]);
  std::vector<int32_t> result;
  result.reserve(static_cast<size_t>(shape_numel(kept)));
  // forEachLine visits the lines in the row-major order of the kept shape.
  const bool isInt = x.dtype() == DType::I32;
  forEachLine(x.shape(), axis, [&](int64_t base, int64_t stride) {
    int64_t best = 0;
    if (isInt) {
      int32_t b = x.intAt(base);
      for (int64_t k = 1; k < len; ++k) {
        int32_t v = x.intAt(base + k * stride);
        if (isMax ? v > b : v < b) b = v, best = k;
      }
    } else {
      float b = x.floatAt(base);
      for (int64_t k = 1; k < len && !std::isnan(b); ++k) {
        float v = x.floatAt(base + k * stride);
        if (std::isnan(v) || (isMax ? v > b : v < b)) b = v, best = k;
      }
    }
    result.push_back(static_cast<int32_t>(best));
  });
  return HostTensor::fromInts(DType::I32, finalShape, result);
}

HostTensor evaluateReduction(OpKind kind, const graph::OpAttrs& attrs, const HostTensor& x) {
  const Shape& in = x.shape();
  const int64_t rank = x.rank();
  // Output shape with reduced dims kept as 1; the final shape drops them unless keepDims.
  Shape kept = in, finalShape;
  for (int64_t a : attrs.axes) kept[a] = 1;
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = std::find(attrs.axes.begin(), attrs.axes.end(), d) != attrs.axes.end();
    if (!reduced || attrs.keepDims) finalShape.push_back(kept[d]);
  }
  const int64_t outN = shape_numel(kept);
  const std::vector<int64_t> outStrides = rowMajorStrides(kept);
  int64_t count = 1;
  for (int64_t a : attrs.axes) count *= in[a];

  const bool isMax = kind == OpKind::ReduceMax, isMin = kind == OpKind::ReduceMin;
  const bool isProd = kind == OpKind::ReduceProd;
  const bool isInt = x.dtype() == DType::I32;
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> acc(outN, isMax ? -inf : isMin ? inf : isProd ? 1.0 : 0.0);
  std::vector<int64_t> intAcc(outN, isMax   ? std::numeric_limits<int32_t>::min()
                                    : isMin  ? std::numeric_limits<int32_t>::max()
                                    : isProd ? 1
                                             : 0);

  // Walk the input in order, tracking the output offset of each element.
  std::vector<int64_t> index(rank, 0);
  int64_t outOffset = 0;
  const int64_t n = x.numel();
  for (int64_t i = 0; i < n; ++i) {
    if (isInt) {
      int64_t v = x.intAt(i);
      int64_t& a = intAcc[outOffset];
      if (isMax)
        a = std::max(a, v);
      else if (isMin)
        a = std::min(a, v);
      else if (isProd)  // wraps, as the kernels' i32 multiply
        a = static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(v));
      else
        a += v;
    } else {
      double v = x.floatAt(i);
      double& a = acc[outOffset];
      if (isMax || isMin)
        a = (std::isnan(v) || std::isnan(a)) ? std::numeric_limits<double>::quiet_NaN()
            : isMax                          ? std::max(a, v)
                                             : std::min(a, v);
      else if (isProd)
        a *= v;
      else
        a += v;
    }
    for (int64_t d = rank - 1; d >= 0; --d) {
      int64_t step = kept[d] == 1 ? 0 : outStrides[d];
      if (++index[d] < in[d]) {
        outOffset += step;
        break;
      }
      outOffset -= step * (in[d] - 1);
      index[d] = 0;
    }
  }

  HostTensor out(x.dtype(), finalShape);
  for (int64_t i = 0; i < outN; ++i) {
    if (isInt) {
      out.setInt(i, static_cast<int32_t>(static_cast<uint32_t>(intAcc[i])));  // wraps
    } else {
      double v = acc[i];
      if (kind == OpKind::ReduceMean) v /= static_cast<double>(count);  // 0/0 is NaN
      out.setFloat(i, static_cast<float>(v));
    }
  }
  return out;
}

HostTensor evaluateSoftmax(const graph::OpAttrs& attrs, const HostTensor& x) {
  std::vector<float> v = x.toFloats();
  const int64_t len = x.shape()[attrs.axis];
  forEachLine(x.shape(), attrs.axis, [&](int64_t base, int64_t stride) {
    float m = -std::numeric_limits<float>::infinity();
    for (int64_t k = 0; k < len; ++k) {
      float e = v[base + k * stride];
      m = std::isnan(e) || std::isnan(m) ? e + m : std::max(m, e);
    }
    double sum = 0;
    for (int64_t k = 0; k < len; ++k) {
      float& e = v[base + k * stride];
      e = std::exp(e - m);
      sum += e;
    }
    for (int64_t k = 0; k < len; ++k)
      v[base + k * stride] = static_cast<float>(v[base + k * stride] / sum);
  });
  return HostTensor::fromFloats(x.dtype(), x.shape(), v);
}

HostTensor evaluateLayerNorm(const graph::OpAttrs& attrs, std::span<const HostTensor> operands) {
  const HostTensor& x = operands[0];
  std::vector<float> v = x.toFloats();
  std::vector<float> weight, bias;
  if (attrs.hasWeight) weight = operands[1].toFloats();
  if (attrs.hasBias) bias = operands[attrs.hasWeight ? 2 : 1].toFloats();
  const int64_t len = x.shape().back();
  forEachLine(x.shape(), x.rank() - 1, [&](int64_t base, int64_t) {
    double mean = 0, var = 0;
    for (int64_t k = 0; k < len; ++k) mean += v[base + k];
    mean /= static_cast<double>(len);
    for (int64_t k = 0; k < len; ++k) var += (v[base + k] - mean) * (v[base + k] - mean);
    var /= static_cast<double>(len);  // biased, as PyTorch
    double inv = 1.0 / std::sqrt(var + attrs.epsilon);
    for (int64_t k = 0; k < len; ++k) {
      double y = (v[base + k] - mean) * inv;
      if (attrs.hasWeight) y *= weight[k];
      if (attrs.hasBias) y += bias[k];
      v[base + k] = static_cast<float>(y);
    }
  });
  return HostTensor::fromFloats(x.dtype(), x.shape(), v);
}

}  // namespace tg::ref
