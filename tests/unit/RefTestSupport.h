//===- RefTestSupport.h - Helpers of the reference-kernel tests -------------===//
//
// Shared by RefElementwiseTest.cpp and RefStructureTest.cpp: exact rounding and ulp distance
// independent of the code under test, host tensors written and read byte-wise, running one op
// through tg::ref::evaluate, and checking results in ulps (see RefElementwiseTest.cpp's header
// for the method).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "HostValues.h"
#include "tg/Reference/RefKernels.h"

#include "tg/Graph/ShapeRules.h"
#include "tg/Support/Half.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace reftest {

using tg::DType;
using tg::Shape;
using tg::graph::CmpPredicate;
using tg::graph::GeluApprox;
using tg::graph::OpAttrs;
using tg::graph::OpKind;
using tg::ref::HostTensor;

constexpr DType kFloatTypes[] = {DType::F32, DType::F16, DType::BF16};
constexpr DType kAllTypes[] = {DType::F32, DType::F16, DType::BF16, DType::I32, DType::Bool};
inline const double kNaN = std::numeric_limits<double>::quiet_NaN();
inline const double kInf = std::numeric_limits<double>::infinity();
constexpr int32_t kIntMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kIntMax = std::numeric_limits<int32_t>::max();

inline std::string nameOf(DType dtype) { return tg::dtype_name(dtype); }

inline int64_t numelOf(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

//===----------------------------------------------------------------------===//
// Exact rounding and the ulp distance, independent of the code under test
//===----------------------------------------------------------------------===//

using tgtest::representable;
using tgtest::roundExact;

/// The position of a dtype value on the integer line of its bit patterns: neighbours differ by
/// one, +0 and -0 coincide. `v` must be representable in `dtype`.
inline int64_t ordinal(DType dtype, double v) {
  uint32_t bits = 0, signBit = 0;
  if (dtype == DType::F32) {
    float f = static_cast<float>(v);
    std::memcpy(&bits, &f, 4);
    signBit = 0x80000000u;
  } else {
    bits = dtype == DType::F16 ? tg::float_to_f16(static_cast<float>(v))
                               : tg::float_to_bf16(static_cast<float>(v));
    signBit = 0x8000u;
  }
  int64_t magnitude = bits & (signBit - 1);
  return (bits & signBit) ? -magnitude : magnitude;
}

//===----------------------------------------------------------------------===//
// Host tensors written and read byte-wise
//===----------------------------------------------------------------------===//

using tgtest::load;
using tgtest::store;

/// A tensor holding `values` (each must be representable in `dtype`).
inline HostTensor make(DType dtype, const Shape& shape, const std::vector<double>& values) {
  EXPECT_EQ(static_cast<int64_t>(values.size()), numelOf(shape));
  HostTensor t(dtype, shape);
  for (int64_t i = 0; i < t.numel(); ++i) {
    EXPECT_TRUE(std::isnan(values[i]) || representable(dtype, values[i]) == values[i])
        << values[i] << " is not a " << nameOf(dtype);
    store(t, i, values[i]);
  }
  return t;
}

inline bool allZero(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return x == 0; });
}

/// `n` values uniform in [lo, hi], as `dtype` holds them (never all zero).
inline std::vector<double> uniform(std::mt19937& rng, DType dtype, int64_t n, double lo, double hi) {
  return tgtest::uniformValues(rng, dtype, n, lo, hi);
}

/// Values drawn from `pool` (to get ties and repeats), never all zero.
inline std::vector<double> fromPool(std::mt19937& rng, int64_t n, const std::vector<double>& pool) {
  std::uniform_int_distribution<size_t> pick(0, pool.size() - 1);
  std::vector<double> v(n);
  do {
    for (double& x : v) x = pool[pick(rng)];
  } while (allZero(v));
  return v;
}

//===----------------------------------------------------------------------===//
// Running an op and checking results
//===----------------------------------------------------------------------===//

/// Checks the operand types with inferResultType (evaluate's precondition) and evaluates. The
/// result must have the inferred type.
inline HostTensor run(OpKind kind, const OpAttrs& attrs, const std::vector<HostTensor>& operands) {
  std::vector<tg::graph::TensorType> types;
  for (const HostTensor& t : operands) types.push_back({t.dtype(), t.shape()});
  tg::graph::TensorType inferred;
  std::string error = tg::graph::inferResultType(kind, attrs, types, inferred);
  if (!error.empty()) {
    ADD_FAILURE() << "invalid test case for " << tg::graph::opName(kind) << ": " << error;
    return HostTensor();
  }
  HostTensor out = tg::ref::evaluate(kind, attrs, operands);
  EXPECT_TRUE(out.defined());
  if (!out.defined()) return out;
  EXPECT_EQ(out.dtype(), inferred.dtype) << tg::graph::opName(kind);
  EXPECT_EQ(out.shape(), inferred.shape) << tg::graph::opName(kind);
  return out;
}

struct Tol {
  int64_t ulps = 0;    ///< Distance from the exact result rounded to the dtype, in ulps.
  double atol = 0.0;   ///< Or an absolute distance from the exact double result.
};

/// Every element of `actual` against `exact` (double results before rounding): NaN exactly where
/// `exact` is NaN, integers and bools exactly, floats within `tol`.
inline void expectNear(const HostTensor& actual, DType dtype, const Shape& shape,
                const std::vector<double>& exact, Tol tol, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_TRUE(actual.defined());
  ASSERT_EQ(actual.dtype(), dtype);
  ASSERT_EQ(actual.shape(), shape);
  ASSERT_EQ(static_cast<int64_t>(exact.size()), actual.numel());
  int failures = 0;
  for (int64_t i = 0; i < actual.numel() && failures < 8; ++i) {
    const double a = load(actual, i), e = exact[i];
    bool ok;
    if (std::isnan(e)) {
      ok = std::isnan(a);
    } else if (!tg::is_floating(dtype)) {
      ok = a == e;
    } else if (std::isnan(a)) {
      ok = false;
    } else {
      const double r = roundExact(dtype, e);
      ok = std::llabs(ordinal(dtype, a) - ordinal(dtype, r)) <= tol.ulps ||
           std::fabs(a - e) <= tol.atol;
    }
    if (!ok) {
      ++failures;
      ADD_FAILURE() << "element " << i << ": got " << a << ", expected " << e
                    << (tg::is_floating(dtype) && !std::isnan(e)
                            ? " (rounded: " + std::to_string(roundExact(dtype, e)) + ")"
                            : std::string())
                    << " [" << nameOf(dtype) << ", tolerance " << tol.ulps << " ulp, atol "
                    << tol.atol << "]";
    }
  }
}

/// Element i of `actual` must have the same bytes as element src[i] of `input` (layout ops and
/// select copy elements without converting them).
inline void expectCopied(const HostTensor& actual, const Shape& shape,
                  const std::vector<const HostTensor*>& inputs,
                  const std::vector<std::pair<int, int64_t>>& src, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_TRUE(actual.defined());
  ASSERT_EQ(actual.shape(), shape);
  ASSERT_EQ(static_cast<int64_t>(src.size()), actual.numel());
  const size_t size = tg::dtype_size(actual.dtype());
  int failures = 0;
  for (int64_t i = 0; i < actual.numel() && failures < 8; ++i) {
    const HostTensor& in = *inputs[src[i].first];
    ASSERT_EQ(in.dtype(), actual.dtype());
    if (std::memcmp(actual.data() + i * size, in.data() + src[i].second * size, size) != 0) {
      ++failures;
      ADD_FAILURE() << "element " << i << ": got " << load(actual, i) << ", expected element "
                    << src[i].second << " of input " << src[i].first << " = "
                    << load(in, src[i].second);
    }
  }
}

/// Row-major multi-index of flat index `i` in `shape`.
inline std::vector<int64_t> unravel(int64_t i, const Shape& shape) {
  std::vector<int64_t> idx(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    idx[d] = i % shape[d];
    i /= shape[d];
  }
  return idx;
}

inline int64_t ravel(const std::vector<int64_t>& idx, const Shape& shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + idx[d];
  return flat;
}

/// Wraps an exact integer result to i32 (two's complement), as tg's i32 arithmetic does.
inline double wrap32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }


}  // namespace reftest
