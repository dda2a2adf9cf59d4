//===- RefElementwise.cpp - Reference semantics of elementwise ops --------===//
#include "tg/Reference/RefKernels.h"

#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>

namespace tg::ref {

using graph::CmpPredicate;
using graph::GeluApprox;
using graph::OpKind;

float unaryFloat(OpKind kind, GeluApprox gelu, float x) {
  switch (kind) {
    case OpKind::Neg: return -x;
    case OpKind::Abs: return std::fabs(x);
    case OpKind::Exp: return std::exp(x);
    case OpKind::Log: return std::log(x);
    case OpKind::Tanh: return std::tanh(x);
    case OpKind::Sigmoid: return 1.0f / (1.0f + std::exp(-x));
    case OpKind::Relu: return x < 0.0f ? 0.0f : x;  // keeps NaN
    case OpKind::Gelu:
      if (gelu == GeluApprox::Tanh) {
        const float k = 0.7978845608028654f;  // sqrt(2 / pi)
        return 0.5f * x * (1.0f + std::tanh(k * (x + 0.044715f * x * x * x)));
      }
      return 0.5f * x * (1.0f + std::erf(x * 0.7071067811865476f));
    case OpKind::Sqrt: return std::sqrt(x);
    case OpKind::Rsqrt: return 1.0f / std::sqrt(x);
    case OpKind::Sin: return std::sin(x);
    case OpKind::Cos: return std::cos(x);
    case OpKind::Erf: return std::erf(x);
    case OpKind::Exp2: return std::exp2(x);
    case OpKind::Log2: return std::log2(x);
    case OpKind::Floor: return std::floor(x);
    case OpKind::Ceil: return std::ceil(x);
    case OpKind::Round: return std::nearbyint(x);  // the default rounding mode: halves to even
    case OpKind::Sign:
      if (std::isnan(x)) return x;
      return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : 0.0f;  // -0 gives +0
    case OpKind::Silu: return x / (1.0f + std::exp(-x));
    default: assert(false && "not a unary float op"); return 0;
  }
}

int32_t unaryInt(OpKind kind, int32_t x) {
  uint32_t u = static_cast<uint32_t>(x);
  switch (kind) {
    case OpKind::Neg: return static_cast<int32_t>(0u - u);  // wraps
    case OpKind::Abs: return x < 0 ? static_cast<int32_t>(0u - u) : x;
    case OpKind::Relu: return x < 0 ? 0 : x;
    case OpKind::Sign: return x > 0 ? 1 : x < 0 ? -1 : 0;
    default: assert(false && "not a unary int op"); return 0;
  }
}

float binaryFloat(OpKind kind, float a, float b) {
  switch (kind) {
    case OpKind::Add: return a + b;
    case OpKind::Sub: return a - b;
    case OpKind::Mul: return a * b;
    case OpKind::Div: return a / b;
    case OpKind::Pow: return std::pow(a, b);
    case OpKind::Maximum:
      if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<float>::quiet_NaN();
      return a > b ? a : b;
    case OpKind::Minimum:
      if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<float>::quiet_NaN();
      return a < b ? a : b;
    default: assert(false && "not a binary float op"); return 0;
  }
}

int32_t binaryInt(OpKind kind, int32_t a, int32_t b) {
  uint32_t ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
  switch (kind) {
    case OpKind::Add: return static_cast<int32_t>(ua + ub);
    case OpKind::Sub: return static_cast<int32_t>(ua - ub);
    case OpKind::Mul: return static_cast<int32_t>(ua * ub);
    case OpKind::Div:
      if (b == 0) return 0;
      if (a == std::numeric_limits<int32_t>::min() && b == -1) return a;
      return a / b;  // truncates toward zero
    case OpKind::Maximum: return a > b ? a : b;
    case OpKind::Minimum: return a < b ? a : b;
    default: assert(false && "not a binary int op"); return 0;
  }
}

template <typename T>
static bool compareValues(CmpPredicate pred, T a, T b) {
  switch (pred) {
    case CmpPredicate::EQ: return a == b;
    case CmpPredicate::NE: return a != b;
    case CmpPredicate::LT: return a < b;
    case CmpPredicate::LE: return a <= b;
    case CmpPredicate::GT: return a > b;
    case CmpPredicate::GE: return a >= b;
  }
  return false;
}

HostTensor evaluateElementwise(OpKind kind, const graph::OpAttrs& attrs,
                               std::span<const HostTensor> operands) {
  if (kind == OpKind::Concat) {  // blocks of `inner` elements per operand, outer times
    Shape shape = operands[0].shape();
    const auto axis = static_cast<size_t>(attrs.axis);
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < axis; ++d) outer *= shape[d];
    for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
    shape[axis] = 0;
    for (const HostTensor& t : operands) shape[axis] += t.shape()[axis];
    HostTensor out(operands[0].dtype(), shape);
    const size_t size = dtype_size(out.dtype());
    std::byte* dst = out.mutableData();
    for (int64_t o = 0; o < outer; ++o)
      for (const HostTensor& t : operands) {
        const size_t block = static_cast<size_t>(t.shape()[axis] * inner) * size;
        std::copy(t.data() + o * block, t.data() + (o + 1) * block, dst);
        dst += block;
      }
    return out;
  }
  if (kind == OpKind::Iota) {
    HostTensor out(attrs.dtype, attrs.shape);
    int64_t inner = 1;
    for (size_t d = static_cast<size_t>(attrs.axis) + 1; d < attrs.shape.size(); ++d) inner *= attrs.shape[d];
    const int64_t extent = attrs.shape[static_cast<size_t>(attrs.axis)];
    for (int64_t i = 0; i < out.numel(); ++i) {
      const int64_t position = i / inner % extent;
      if (attrs.dtype == DType::I32)
        out.setInt(i, static_cast<int32_t>(position));
      else
        out.setFloat(i, static_cast<float>(position));  // one rounding to the dtype
    }
    return out;
  }
  const HostTensor& x = operands[0];
  const int64_t n = x.numel();
  const bool isFloat = is_floating(x.dtype());

  if (kind == OpKind::Cast) {
    HostTensor out(attrs.dtype, x.shape());
    bool intPath = !is_floating(x.dtype());  // from i32/bool: setInt rounds once
    for (int64_t i = 0; i < n; ++i) {
      if (intPath)
        out.setInt(i, x.intAt(i));
      else
        out.setFloat(i, x.floatAt(i));
    }
    return out;
  }
  if (kind == OpKind::Select) {
    const HostTensor &c = operands[0], &a = operands[1], &b = operands[2];
    HostTensor out(a.dtype(), a.shape());
    size_t size = dtype_size(a.dtype());
    const uint8_t* cond = c.dataAs<uint8_t>();
    for (int64_t i = 0; i < n; ++i) {
      const std::byte* src = (cond[i] ? a.data() : b.data()) + i * size;
      std::copy(src, src + size, out.mutableData() + i * size);
    }
    return out;
  }
  if (kind == OpKind::Clamp) {  // minimum(maximum(x, lo), hi), the binary ops' semantics
    const HostTensor &lo = operands[1], &hi = operands[2];
    if (!isFloat) {
      std::vector<int32_t> v = x.toInts(), l = lo.toInts(), h = hi.toInts();
      for (int64_t i = 0; i < n; ++i)
        v[i] = binaryInt(OpKind::Minimum, binaryInt(OpKind::Maximum, v[i], l[i]), h[i]);
      return HostTensor::fromInts(x.dtype(), x.shape(), v);
    }
    std::vector<float> v = x.toFloats(), l = lo.toFloats(), h = hi.toFloats();
    for (int64_t i = 0; i < n; ++i)
      v[i] = binaryFloat(OpKind::Minimum, binaryFloat(OpKind::Maximum, v[i], l[i]), h[i]);
    return HostTensor::fromFloats(x.dtype(), x.shape(), v);
  }
  if (kind == OpKind::Compare) {
    const HostTensor& y = operands[1];
    HostTensor out(DType::Bool, x.shape());
    uint8_t* dst = out.mutableDataAs<uint8_t>();
    for (int64_t i = 0; i < n; ++i)
      dst[i] = isFloat ? compareValues(attrs.predicate, x.floatAt(i), y.floatAt(i))
                       : compareValues(attrs.predicate, x.intAt(i), y.intAt(i));
    return out;
  }
  if (graph::isUnaryElementwise(kind)) {
    if (!isFloat) {
      std::vector<int32_t> v = x.toInts();
      for (int32_t& e : v) e = unaryInt(kind, e);
      return HostTensor::fromInts(x.dtype(), x.shape(), v);
    }
    std::vector<float> v = x.toFloats();
    for (float& e : v) e = unaryFloat(kind, attrs.gelu, e);
    return HostTensor::fromFloats(x.dtype(), x.shape(), v);
  }
  assert(graph::isBinaryElementwise(kind));
  const HostTensor& y = operands[1];
  if (!isFloat) {
    std::vector<int32_t> a = x.toInts(), b = y.toInts();
    for (int64_t i = 0; i < n; ++i) a[i] = binaryInt(kind, a[i], b[i]);
    return HostTensor::fromInts(x.dtype(), x.shape(), a);
  }
  std::vector<float> a = x.toFloats(), b = y.toFloats();
  for (int64_t i = 0; i < n; ++i) a[i] = binaryFloat(kind, a[i], b[i]);
  return HostTensor::fromFloats(x.dtype(), x.shape(), a);
}

}  // namespace tg::ref
