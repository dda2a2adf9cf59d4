//===- HostValues.h - Test values for host tensors, independent of the code under test ===//
//
// Elements written and read byte-wise, values rounded to a dtype by exact arithmetic in
// double, and random values: independent of HostTensor's own accessors (setFloat / floatAt)
// and conversions, so tests of the reference kernels do not check the code under test against
// itself. tg/Support/Half.h is used only for the 16-bit bit patterns.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Reference/HostTensor.h"
#include "tg/Support/Half.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace tgtest {

using tg::DType;
using tg::ref::HostTensor;

inline void store(HostTensor& t, int64_t i, double v) {
  std::byte* p = t.mutableData() + i * tg::dtype_size(t.dtype());
  switch (t.dtype()) {
    case DType::F32: {
      float f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
      return;
    }
    case DType::F16: {
      uint16_t h = tg::float_to_f16(static_cast<float>(v));
      std::memcpy(p, &h, 2);
      return;
    }
    case DType::BF16: {
      uint16_t h = tg::float_to_bf16(static_cast<float>(v));
      std::memcpy(p, &h, 2);
      return;
    }
    case DType::I32: {
      int32_t x = static_cast<int32_t>(v);
      std::memcpy(p, &x, 4);
      return;
    }
    case DType::Bool: {
      uint8_t b = v != 0 ? 1 : 0;
      std::memcpy(p, &b, 1);
      return;
    }
  }
}

inline double load(const HostTensor& t, int64_t i) {
  const std::byte* p = t.data() + i * tg::dtype_size(t.dtype());
  switch (t.dtype()) {
    case DType::F32: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case DType::F16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return tg::f16_to_float(h);
    }
    case DType::BF16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return tg::bf16_to_float(h);
    }
    case DType::I32: {
      int32_t x;
      std::memcpy(&x, p, 4);
      return x;
    }
    case DType::Bool: {
      uint8_t b;
      std::memcpy(&b, p, 1);
      return b;
    }
  }
  return 0;
}

/// `x` rounded to nearest-even at `dtype`'s precision (subnormals included; overflow to inf).
inline double roundExact(DType dtype, double x) {
  if (x == 0 || !std::isfinite(x)) return x;
  int precision = dtype == DType::F32 ? 24 : dtype == DType::F16 ? 11 : 8;
  int minExp = dtype == DType::F16 ? -14 : -126;
  double maxFinite = dtype == DType::F32   ? std::numeric_limits<float>::max()
                     : dtype == DType::F16 ? 65504.0
                                           : std::ldexp(255.0, 120);  // bf16 0x7f7f
  int e = std::max(std::ilogb(x), minExp);
  double ulp = std::ldexp(1.0, e - (precision - 1));
  double r = std::nearbyint(x / ulp) * ulp;  // default mode: to nearest, ties to even
  if (std::fabs(r) > maxFinite) return std::copysign(std::numeric_limits<double>::infinity(), x);
  return r;
}

/// `x` as `dtype` holds it (floats rounded, i32 truncated, bool 0/1).
inline double representable(DType dtype, double x) {
  switch (dtype) {
    case DType::F32:
    case DType::F16:
    case DType::BF16:
      return roundExact(dtype, x);
    case DType::I32:
      return std::trunc(x);
    case DType::Bool:
      return x != 0 ? 1.0 : 0.0;
  }
  return x;
}

/// `n` values uniform in [lo, hi] as `dtype` holds them: never all zero, and for bool both
/// values present.
inline std::vector<double> uniformValues(std::mt19937& rng, DType dtype, int64_t n, double lo,
                                         double hi) {
  std::vector<double> v(n);
  for (;;) {
    if (dtype == DType::I32) {
      std::uniform_int_distribution<int64_t> dist(static_cast<int64_t>(lo),
                                                  static_cast<int64_t>(hi));
      for (double& x : v) x = static_cast<double>(dist(rng));
    } else if (dtype == DType::Bool) {
      std::bernoulli_distribution dist(0.5);
      for (double& x : v) x = dist(rng) ? 1 : 0;
    } else {
      std::uniform_real_distribution<double> dist(lo, hi);
      for (double& x : v) x = roundExact(dtype, dist(rng));
    }
    bool anyZero = false, anyNonZero = false;
    for (double x : v) (x == 0 ? anyZero : anyNonZero) = true;
    if (anyNonZero && (dtype != DType::Bool || anyZero || n < 2)) return v;
  }
}

}  // namespace tgtest
