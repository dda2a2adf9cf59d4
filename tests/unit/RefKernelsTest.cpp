//===- RefKernelsTest.cpp - tg::ref::evaluate against independent naive loops ===//
//
// Every op kind, for every dtype it accepts, on fresh random inputs (one seeded std::mt19937
// per test). The expected values come from naive loops in this file, computed in double, and
// are rounded to the result dtype by tgtest::roundExact() (tests/common/HostValues.h: exact
// arithmetic in double, independent of the bit tricks of tg/Support/Half.h). Inputs are written and results read byte-wise with
// Half.h's conversions, so no conversion of HostTensor is used to produce an expected value.
//
// Tolerances are counted in units in the last place (ulps) of the result dtype, on the integer
// line of its bit patterns (adjacent values differ by 1, across subnormals and up to infinity),
// against the exact double result rounded to the dtype:
//  - 0 ulps where a single correctly rounded operation gives the result (neg, abs, relu, f32
//    add/sub/mul/div/sqrt, casts, layout ops, integer ops, compares);
//  - 1 ulp for bf16/f16 results whose math runs in f32 or f64 and is then rounded to the dtype;
//  - a few ulps for f32 results of the C library's f32 functions, stated per op.
//
//===----------------------------------------------------------------------===//
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

namespace {

using tg::DType;
using tg::Shape;
using tg::graph::CmpPredicate;
using tg::graph::GeluApprox;
using tg::graph::OpAttrs;
using tg::graph::OpKind;
using tg::ref::HostTensor;

constexpr DType kFloatTypes[] = {DType::F32, DType::F16, DType::BF16};
constexpr DType kAllTypes[] = {DType::F32, DType::F16, DType::BF16, DType::I32, DType::Bool};
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();
constexpr int32_t kIntMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kIntMax = std::numeric_limits<int32_t>::max();

std::string nameOf(DType dtype) { return tg::dtype_name(dtype); }

int64_t numelOf(const Shape& shape) {
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
int64_t ordinal(DType dtype, double v) {
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
HostTensor make(DType dtype, const Shape& shape, const std::vector<double>& values) {
  EXPECT_EQ(static_cast<int64_t>(values.size()), numelOf(shape));
  HostTensor t(dtype, shape);
  for (int64_t i = 0; i < t.numel(); ++i) {
    EXPECT_TRUE(std::isnan(values[i]) || representable(dtype, values[i]) == values[i])
        << values[i] << " is not a " << nameOf(dtype);
    store(t, i, values[i]);
  }
  return t;
}

bool allZero(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return x == 0; });
}

/// `n` values uniform in [lo, hi], as `dtype` holds them (never all zero).
std::vector<double> uniform(std::mt19937& rng, DType dtype, int64_t n, double lo, double hi) {
  return tgtest::uniformValues(rng, dtype, n, lo, hi);
}

/// Values drawn from `pool` (to get ties and repeats), never all zero.
std::vector<double> fromPool(std::mt19937& rng, int64_t n, const std::vector<double>& pool) {
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
HostTensor run(OpKind kind, const OpAttrs& attrs, const std::vector<HostTensor>& operands) {
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
void expectNear(const HostTensor& actual, DType dtype, const Shape& shape,
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
void expectCopied(const HostTensor& actual, const Shape& shape,
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
std::vector<int64_t> unravel(int64_t i, const Shape& shape) {
  std::vector<int64_t> idx(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    idx[d] = i % shape[d];
    i /= shape[d];
  }
  return idx;
}

int64_t ravel(const std::vector<int64_t>& idx, const Shape& shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + idx[d];
  return flat;
}

/// Wraps an exact integer result to i32 (two's complement), as tg's i32 arithmetic does.
double wrap32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

struct UnaryCase {
  OpKind kind;
  GeluApprox gelu;
  const char* name;
  double lo, hi;                  // input range
  std::function<double(double)> f;
  Tol f32Tol;                     // f32 results; bf16/f16 results use lowTol
  Tol lowTol;
};

const double kSqrt2OverPi = std::sqrt(2.0 / std::acos(-1.0));

std::vector<UnaryCase> unaryCases() {
  // f32 results come from the C library's f32 functions: <= 2 ulp (glibc's documented
  // bounds for expf/logf/tanhf are <= 2), 3 ulp for the composed sigmoid and rsqrt. gelu's
  // 1 + erf/tanh cancels for negative x, so it also accepts an absolute 1e-6 on [-3, 3].
  // bf16/f16 results: 1 ulp (the f32 result rounded again), neg/abs/relu exactly.
  return {
      {OpKind::Neg, GeluApprox::Erf, "neg", -50, 50, [](double x) { return -x; }, {0, 0}, {0, 0}},
      {OpKind::Abs, GeluApprox::Erf, "abs", -50, 50, [](double x) { return std::fabs(x); },
       {0, 0}, {0, 0}},
      {OpKind::Exp, GeluApprox::Erf, "exp", -10, 10, [](double x) { return std::exp(x); },
       {2, 0}, {1, 0}},
      {OpKind::Log, GeluApprox::Erf, "log", 0.01, 100, [](double x) { return std::log(x); },
       {2, 0}, {1, 0}},
      {OpKind::Tanh, GeluApprox::Erf, "tanh", -6, 6, [](double x) { return std::tanh(x); },
       {2, 0}, {1, 0}},
      {OpKind::Sigmoid, GeluApprox::Erf, "sigmoid", -12, 12,
       [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, {3, 0}, {1, 0}},
      {OpKind::Relu, GeluApprox::Erf, "relu", -50, 50,
       [](double x) { return std::isnan(x) || x > 0 ? x : 0.0; }, {0, 0}, {0, 0}},
      {OpKind::Gelu, GeluApprox::Erf, "gelu_erf", -3, 3,
       [](double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }, {4, 1e-6},
       {1, 0}},
      {OpKind::Gelu, GeluApprox::Tanh, "gelu_tanh", -3, 3,
       [](double x) {
         return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
       },
       {4, 1e-6}, {1, 0}},
      {OpKind::Sqrt, GeluApprox::Erf, "sqrt", 0, 100, [](double x) { return std::sqrt(x); },
       {0, 0}, {1, 0}},
      {OpKind::Rsqrt, GeluApprox::Erf, "rsqrt", 0.01, 100,
       [](double x) { return 1.0 / std::sqrt(x); }, {3, 0}, {1, 0}},
  };
}

TEST(RefUnary, EveryFloatOpEveryFloatDType) {
  std::mt19937 rng(101);
  const Shape shape{3, 5, 17};
  for (const UnaryCase& c : unaryCases()) {
    for (DType dtype : kFloatTypes) {
      std::vector<double> x = uniform(rng, dtype, numelOf(shape), c.lo, c.hi);
      OpAttrs attrs;
      attrs.gelu = c.gelu;
      HostTensor out = run(c.kind, attrs, {make(dtype, shape, x)});
      std::vector<double> expected(x.size());
      for (size_t i = 0; i < x.size(); ++i) expected[i] = c.f(x[i]);
      expectNear(out, dtype, shape, expected, dtype == DType::F32 ? c.f32Tol : c.lowTol,
                 std::string(c.name) + " " + nameOf(dtype));
    }
  }
}

TEST(RefUnary, SpecialValues) {
  // IEEE special values through every unary op but gelu: the same naive double functions give
  // the expected value (NaN in, NaN out; log(0) = -inf; sqrt(-1) = NaN; rsqrt(0) = inf; ...).
  // Tolerance: as in EveryFloatOpEveryFloatDType.
  std::mt19937 rng(102);
  const std::vector<double> specials{0.0, -0.0, 1.0, -1.0, kInf, -kInf, kNaN, 0.25, -4.0};
  for (const UnaryCase& c : unaryCases()) {
    if (c.kind == OpKind::Gelu) continue;
    for (DType dtype : kFloatTypes) {
      std::vector<double> x = specials;
      std::shuffle(x.begin(), x.end(), rng);
      const Shape shape{static_cast<int64_t>(x.size())};
      HostTensor out = run(c.kind, {}, {make(dtype, shape, x)});
      std::vector<double> expected(x.size());
      for (size_t i = 0; i < x.size(); ++i) expected[i] = c.f(x[i]);
      expectNear(out, dtype, shape, expected, dtype == DType::F32 ? c.f32Tol : c.lowTol,
                 std::string(c.name) + " specials " + nameOf(dtype));
    }
  }
}

TEST(RefUnary, ReluKeepsNaN) {
  // relu(NaN) is NaN (RefKernels.h), for every float dtype; other elements exactly max(x, 0).
  std::mt19937 rng(103);
  const Shape shape{64};
  for (DType dtype : kFloatTypes) {
    std::vector<double> x = uniform(rng, dtype, 64, -10, 10);
    for (int64_t i : {0, 7, 31, 63}) x[i] = kNaN;
    HostTensor out = run(OpKind::Relu, {}, {make(dtype, shape, x)});
    std::vector<double> expected(x.size());
    for (size_t i = 0; i < x.size(); ++i) expected[i] = std::isnan(x[i]) ? kNaN : std::max(x[i], 0.0);
    expectNear(out, dtype, shape, expected, {0, 0}, "relu NaN " + nameOf(dtype));
    for (int64_t i : {0, 7, 31, 63}) EXPECT_TRUE(std::isnan(load(out, i))) << i;
  }
}

TEST(RefUnary, IntegerNegAbsRelu) {
  // neg, abs and relu on i32, exact, with wrap-around: -INT_MIN == abs(INT_MIN) == INT_MIN.
  std::mt19937 rng(104);
  const Shape shape{200};
  std::vector<double> x = uniform(rng, DType::I32, 200, kIntMin, kIntMax);
  x[0] = kIntMin;
  x[1] = kIntMax;
  x[2] = 0;
  x[3] = -1;
  x[4] = kIntMin + 1;
  struct {
    OpKind kind;
    std::function<int64_t(int64_t)> f;
  } cases[] = {{OpKind::Neg, [](int64_t v) { return -v; }},
               {OpKind::Abs, [](int64_t v) { return v < 0 ? -v : v; }},
               {OpKind::Relu, [](int64_t v) { return v < 0 ? 0 : v; }}};
  for (const auto& c : cases) {
    HostTensor out = run(c.kind, {}, {make(DType::I32, shape, x)});
    std::vector<double> expected(x.size());
    for (size_t i = 0; i < x.size(); ++i) expected[i] = wrap32(c.f(static_cast<int64_t>(x[i])));
    expectNear(out, DType::I32, shape, expected, {}, std::string(tg::graph::opName(c.kind)));
  }
}

//===----------------------------------------------------------------------===//
// Elementwise binary
//===----------------------------------------------------------------------===//

TEST(RefBinary, EveryFloatOpEveryFloatDType) {
  // f32: add/sub/mul/div/maximum/minimum are one correctly rounded f32 operation: 0 ulp; pow
  // (powf) 2 ulp. bf16/f16: computed in f32 and rounded again: 1 ulp (max/min exact).
  std::mt19937 rng(201);
  const Shape shape{7, 37};
  const int64_t n = numelOf(shape);
  struct Case {
    OpKind kind;
    std::function<double(double, double)> f;
    Tol f32Tol, lowTol;
  } cases[] = {
      {OpKind::Add, [](double a, double b) { return a + b; }, {0, 0}, {1, 0}},
      {OpKind::Sub, [](double a, double b) { return a - b; }, {0, 0}, {1, 0}},
      {OpKind::Mul, [](double a, double b) { return a * b; }, {0, 0}, {1, 0}},
      {OpKind::Div, [](double a, double b) { return a / b; }, {0, 0}, {1, 0}},
      {OpKind::Pow, [](double a, double b) { return std::pow(a, b); }, {2, 0}, {1, 0}},
      {OpKind::Maximum, [](double a, double b) { return std::max(a, b); }, {0, 0}, {0, 0}},
      {OpKind::Minimum, [](double a, double b) { return std::min(a, b); }, {0, 0}, {0, 0}},
  };
  for (const Case& c : cases) {
    for (DType dtype : kFloatTypes) {
      std::vector<double> a, b;
      if (c.kind == OpKind::Pow) {
        a = uniform(rng, dtype, n, 0.1, 8);
        b = uniform(rng, dtype, n, -4, 4);
      } else if (c.kind == OpKind::Div) {
        a = uniform(rng, dtype, n, -100, 100);
        b = uniform(rng, dtype, n, 0.5, 100);
        for (int64_t i = 0; i < n; i += 2) b[i] = -b[i];
      } else {
        a = uniform(rng, dtype, n, -100, 100);
        b = uniform(rng, dtype, n, -100, 100);
        for (int64_t i = 0; i < n; i += 5) b[i] = a[i];  // ties
      }
      HostTensor out = run(c.kind, {}, {make(dtype, shape, a), make(dtype, shape, b)});
      std::vector<double> expected(n);
      for (int64_t i = 0; i < n; ++i) expected[i] = c.f(a[i], b[i]);
      expectNear(out, dtype, shape, expected, dtype == DType::F32 ? c.f32Tol : c.lowTol,
                 std::string(tg::graph::opName(c.kind)) + " " + nameOf(dtype));
    }
  }
}

TEST(RefBinary, PowOfNegativeBases) {
  // Negative bases: integer exponents give signed results, others NaN (as C's pow). f32 2 ulp,
  // bf16/f16 1 ulp.
  std::mt19937 rng(202);
  const Shape shape{60};
  for (DType dtype : kFloatTypes) {
    std::vector<double> a = uniform(rng, dtype, 60, -4, -0.25);
    std::vector<double> b = fromPool(rng, 60, {-3, -2, -1, 0, 1, 2, 3, 0.5, -1.5});
    HostTensor out = run(OpKind::Pow, {}, {make(dtype, shape, a), make(dtype, shape, b)});
    std::vector<double> expected(60);
    for (int i = 0; i < 60; ++i) expected[i] = std::pow(a[i], b[i]);
    expectNear(out, dtype, shape, expected, dtype == DType::F32 ? Tol{2, 0} : Tol{1, 0},
               "pow negative bases " + nameOf(dtype));
  }
}

TEST(RefBinary, FloatDivisionByZeroIsIeee) {
  // x / +-0 is +-inf and 0 / 0 is NaN for floats (only i32 defines x / 0 = 0), next to
  // ordinary quotients: f32 exact, bf16/f16 1 ulp (an f32 quotient rounded again).
  std::mt19937 rng(203);
  const Shape shape{42};
  for (DType dtype : kFloatTypes) {
    std::vector<double> a = uniform(rng, dtype, 42, -5, 5);
    std::vector<double> b = uniform(rng, dtype, 42, 0.25, 5);
    a[0] = 0;
    for (int i = 0; i < 42; i += 3) b[i] = 0.0;
    for (int i = 1; i < 42; i += 3) b[i] = -0.0;
    HostTensor out = run(OpKind::Div, {}, {make(dtype, shape, a), make(dtype, shape, b)});
    std::vector<double> expected(42);
    for (int i = 0; i < 42; ++i) expected[i] = a[i] / b[i];
    expectNear(out, dtype, shape, expected, dtype == DType::F32 ? Tol{0, 0} : Tol{1, 0},
               "div by zero " + nameOf(dtype));
    if (out.defined()) {
      EXPECT_TRUE(std::isnan(load(out, 0)));
    }
  }
}

TEST(RefBinary, MaximumMinimumPropagateNaN) {
  // NaN in either operand gives NaN (RefKernels.h); elsewhere exact max/min.
  std::mt19937 rng(204);
  const Shape shape{5, 9};
  const int64_t n = numelOf(shape);
  for (DType dtype : kFloatTypes) {
    std::vector<double> a = uniform(rng, dtype, n, -10, 10), b = uniform(rng, dtype, n, -10, 10);
    std::bernoulli_distribution coin(0.3);
    for (int64_t i = 0; i < n; ++i) {
      if (coin(rng)) a[i] = kNaN;
      if (coin(rng)) b[i] = kNaN;
    }
    a[0] = kNaN;  // NaN on the left with a large right
    b[0] = 1e3;
    a[1] = -1e3;  // NaN on the right with a small left
    b[1] = kNaN;
    a[2] = kNaN;
    b[2] = kNaN;
    a[3] = 3;
    b[3] = -kInf;
    for (OpKind kind : {OpKind::Maximum, OpKind::Minimum}) {
      HostTensor out = run(kind, {}, {make(dtype, shape, a), make(dtype, shape, b)});
      std::vector<double> expected(n);
      for (int64_t i = 0; i < n; ++i)
        expected[i] = std::isnan(a[i]) || std::isnan(b[i])
                          ? kNaN
                          : (kind == OpKind::Maximum ? std::max(a[i], b[i]) : std::min(a[i], b[i]));
      expectNear(out, dtype, shape, expected, {0, 0},
                 std::string(tg::graph::opName(kind)) + " NaN " + nameOf(dtype));
    }
  }
}

TEST(RefBinary, IntegerOpsWrapAndTruncate) {
  // i32 add/sub/mul/div/maximum/minimum on random full-range values, exact: the naive loop
  // computes in int64 and wraps; division truncates toward zero with x / 0 = 0.
  std::mt19937 rng(205);
  const Shape shape{300};
  std::vector<double> a = uniform(rng, DType::I32, 300, kIntMin, kIntMax);
  std::vector<double> b = uniform(rng, DType::I32, 300, kIntMin, kIntMax);
  std::vector<double> small = uniform(rng, DType::I32, 300, -50, 50);  // divisors incl. 0
  for (int i = 0; i < 300; i += 4) b[i] = small[i];
  for (int i = 1; i < 300; i += 7) b[i] = a[i];
  auto div = [](int64_t x, int64_t y) -> int64_t {
    if (y == 0) return 0;
    int64_t q = std::llabs(x) / std::llabs(y);  // truncation toward zero
    return (x < 0) != (y < 0) ? -q : q;
  };
  struct {
    OpKind kind;
    std::function<int64_t(int64_t, int64_t)> f;
  } cases[] = {
      {OpKind::Add, [](int64_t x, int64_t y) { return x + y; }},
      {OpKind::Sub, [](int64_t x, int64_t y) { return x - y; }},
      {OpKind::Mul, [](int64_t x, int64_t y) { return x * y; }},
      {OpKind::Div, div},
      {OpKind::Maximum, [](int64_t x, int64_t y) { return std::max(x, y); }},
      {OpKind::Minimum, [](int64_t x, int64_t y) { return std::min(x, y); }},
  };
  for (const auto& c : cases) {
    HostTensor out = run(c.kind, {}, {make(DType::I32, shape, a), make(DType::I32, shape, b)});
    std::vector<double> expected(300);
    for (int i = 0; i < 300; ++i)
      expected[i] = wrap32(c.f(static_cast<int64_t>(a[i]), static_cast<int64_t>(b[i])));
    expectNear(out, DType::I32, shape, expected, {}, std::string(tg::graph::opName(c.kind)));
  }
}

TEST(RefBinary, IntegerOverflowWraps) {
  // Exact two's complement wrap-around.
  const Shape shape{6};
  HostTensor a = make(DType::I32, shape, {kIntMax, kIntMin, kIntMax, 65536, -65536, 46341});
  HostTensor b = make(DType::I32, shape, {1, -1, kIntMax, 65536, 65536, 46341});
  expectNear(run(OpKind::Add, {}, {a, b}), DType::I32, shape,
             {kIntMin, kIntMax, -2, 131072, 0, 92682}, {}, "add wraps");
  expectNear(run(OpKind::Sub, {}, {a, b}), DType::I32, shape,
             {kIntMax - 1, kIntMin + 1, 0, 0, -131072, 0}, {}, "sub wraps");
  expectNear(run(OpKind::Mul, {}, {a, b}), DType::I32, shape,
             {kIntMax, kIntMin, 1, 0, 0, wrap32(int64_t{46341} * 46341)}, {}, "mul wraps");
  EXPECT_EQ(wrap32(int64_t{46341} * 46341), -2147479015.0);  // the naive wrap itself
}

TEST(RefBinary, IntegerDivisionSemantics) {
  // x / 0 == 0, INT_MIN / -1 == INT_MIN, truncation of negatives toward zero. Exact.
  const Shape shape{12};
  HostTensor a = make(DType::I32, shape, {7, -7, 7, -7, kIntMin, kIntMin, 5, -5, 0, kIntMax, -1, 9});
  HostTensor b = make(DType::I32, shape, {2, 2, -2, -2, -1, 1, 0, 0, 0, -1, 3, -10});
  expectNear(run(OpKind::Div, {}, {a, b}), DType::I32, shape,
             {3, -3, -3, 3, kIntMin, kIntMin, 0, 0, 0, -kIntMax, 0, 0}, {}, "i32 div");
}

//===----------------------------------------------------------------------===//
// Compare and select
//===----------------------------------------------------------------------===//

bool naiveCompare(CmpPredicate p, double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return p == CmpPredicate::NE;
  switch (p) {
    case CmpPredicate::EQ: return a == b;
    case CmpPredicate::NE: return a != b;
    case CmpPredicate::LT: return a < b;
    case CmpPredicate::LE: return a <= b;
    case CmpPredicate::GT: return a > b;
    case CmpPredicate::GE: return a >= b;
  }
  return false;
}

constexpr CmpPredicate kPredicates[] = {CmpPredicate::EQ, CmpPredicate::NE, CmpPredicate::LT,
                                        CmpPredicate::LE, CmpPredicate::GT, CmpPredicate::GE};

TEST(RefCompare, EveryPredicateEveryDType) {
  // Values from small pools so that equal pairs are common (-0 == +0). Exact bool results.
  std::mt19937 rng(301);
  const Shape shape{4, 50};
  for (DType dtype : kAllTypes) {
    std::vector<double> pool;
    if (dtype == DType::I32)
      pool = {kIntMin, -5, -1, 0, 1, 5, kIntMax};
    else if (dtype == DType::Bool)
      pool = {0, 1};
    else
      pool = {-kInf, -2, -0.5, -0.0, 0.0, 0.5, 1, 2, 4096, kInf};
    std::vector<double> a = fromPool(rng, 200, pool), b = fromPool(rng, 200, pool);
    for (CmpPredicate p : kPredicates) {
      OpAttrs attrs;
      attrs.predicate = p;
      HostTensor out = run(OpKind::Compare, attrs, {make(dtype, shape, a), make(dtype, shape, b)});
      std::vector<double> expected(200);
      for (int i = 0; i < 200; ++i) expected[i] = naiveCompare(p, a[i], b[i]);
      expectNear(out, DType::Bool, shape, expected, {},
                 std::string(tg::graph::predicateName(p)) + " " + nameOf(dtype));
    }
  }
}

TEST(RefCompare, NaNIsUnorderedExceptNe) {
  // Any comparison with NaN is false, except ne, which is true. Exact.
  std::mt19937 rng(302);
  const Shape shape{30};
  for (DType dtype : kFloatTypes) {
    std::vector<double> a = uniform(rng, dtype, 30, -3, 3), b = uniform(rng, dtype, 30, -3, 3);
    for (int i = 0; i < 30; i += 3) a[i] = kNaN;
    for (int i = 1; i < 30; i += 3) b[i] = kNaN;
    a[2] = b[2] = kNaN;
    for (CmpPredicate p : kPredicates) {
      OpAttrs attrs;
      attrs.predicate = p;
      HostTensor out = run(OpKind::Compare, attrs, {make(dtype, shape, a), make(dtype, shape, b)});
      std::vector<double> expected(30);
      for (int i = 0; i < 30; ++i) expected[i] = naiveCompare(p, a[i], b[i]);
      expectNear(out, DType::Bool, shape, expected, {},
                 std::string(tg::graph::predicateName(p)) + " NaN " + nameOf(dtype));
      for (int i : {0, 1, 2})
        EXPECT_EQ(load(out, i), p == CmpPredicate::NE ? 1.0 : 0.0)
            << tg::graph::predicateName(p) << " element " << i;
    }
  }
}

TEST(RefSelect, EveryDType) {
  // select copies the chosen element bit for bit (NaN and -0 included).
  std::mt19937 rng(303);
  const Shape shape{3, 41};
  const int64_t n = numelOf(shape);
  for (DType dtype : kAllTypes) {
    std::vector<double> cond = uniform(rng, DType::Bool, n, 0, 1);
    cond[0] = 1;
    cond[1] = 0;
    std::vector<double> a = uniform(rng, dtype, n, -1000, 1000);
    std::vector<double> b = uniform(rng, dtype, n, -1000, 1000);
    if (tg::is_floating(dtype)) {
      a[2] = kNaN;
      b[3] = -0.0;
    }
    HostTensor c = make(DType::Bool, shape, cond), ta = make(dtype, shape, a),
               tb = make(dtype, shape, b);
    HostTensor out = run(OpKind::Select, {}, {c, ta, tb});
    std::vector<std::pair<int, int64_t>> src(n);
    for (int64_t i = 0; i < n; ++i) src[i] = {cond[i] != 0 ? 0 : 1, i};
    expectCopied(out, shape, {&ta, &tb}, src, "select " + nameOf(dtype));
    if (out.defined()) {
      EXPECT_EQ(out.dtype(), dtype);
    }
  }
}

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

/// The naive cast of an exact source value to `to`.
double naiveCast(double v, DType to) {
  switch (to) {
    case DType::F32:
    case DType::F16:
    case DType::BF16:
      return roundExact(to, v);
    case DType::I32:
      if (std::isnan(v)) return 0;
      if (v >= 2147483648.0) return kIntMax;
      if (v <= -2147483648.0) return kIntMin;
      return std::trunc(v);
    case DType::Bool:
      return v != 0 ? 1 : 0;  // NaN != 0
  }
  return 0;
}

/// Random values plus the edge cases of every conversion (ties of each float format, the i32
/// saturation bounds, infinities, NaN, signed zero, subnormals), kept where `dtype` holds them.
std::vector<double> castInputs(std::mt19937& rng, DType dtype) {
  std::vector<double> v;
  if (dtype == DType::Bool) return uniform(rng, DType::Bool, 64, 0, 1);
  if (dtype == DType::I32) {
    v = uniform(rng, DType::I32, 96, kIntMin, kIntMax);
    std::vector<double> small = uniform(rng, DType::I32, 32, -70000, 70000);
    v.insert(v.end(), small.begin(), small.end());
    for (double e : {0.0, 1.0, -1.0, double(kIntMin), double(kIntMax), 16777217.0, -16777217.0,
                     16842753.0, -16842753.0, 16777219.0, 257.0, 259.0, -257.0, 2049.0, 2051.0,
                     65504.0, 65519.0, 65520.0, 65536.0, 2147483584.0, 2147483520.0})
      v.push_back(e);
    return v;
  }
  double range = dtype == DType::F16 ? 60000 : 1e6;
  v = uniform(rng, dtype, 64, -range, range);
  std::vector<double> fractions = uniform(rng, dtype, 64, -3, 3);
  v.insert(v.end(), fractions.begin(), fractions.end());
  const std::vector<double> edges{
      0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.7, 0.999, -0.999, 1e-3, 3e9, -3e9,
      2147483520.0, 2147483648.0, -2147483648.0, -2147483904.0, 4294967296.0, 1e38, -1e38,
      kInf, -kInf, kNaN, 65504, 65519, 65520, -65520, 1e5, 1e-8, 3e-5, 6.1e-5,
      1 + std::ldexp(1, -8), 1 + 3 * std::ldexp(1, -8),    // bf16 ties
      1 + std::ldexp(1, -11), 1 + 3 * std::ldexp(1, -11),  // f16 ties
      std::ldexp(1, -25), 3 * std::ldexp(1, -25),          // f16 subnormal ties
      std::ldexp(1, -24), 257, 259, 16777216, 1e-40};
  for (double e : edges) v.push_back(representable(dtype, e));
  return v;
}

TEST(RefCast, EveryPairOfDTypes) {
  // Every (from, to) pair, exact: floats round to nearest-even once (ties to even, f16
  // subnormals, overflow to inf), float -> i32 truncates toward zero and saturates with NaN -> 0,
  // anything -> bool is != 0 (so NaN and -0 -> true and false), bool -> numbers is 0/1.
  std::mt19937 rng(401);
  for (DType from : kAllTypes) {
    std::vector<double> x = castInputs(rng, from);
    const Shape shape{static_cast<int64_t>(x.size())};
    HostTensor input = make(from, shape, x);
    for (DType to : kAllTypes) {
      OpAttrs attrs;
      attrs.dtype = to;
      HostTensor out = run(OpKind::Cast, attrs, {input});
      std::vector<double> expected(x.size());
      for (size_t i = 0; i < x.size(); ++i) expected[i] = naiveCast(x[i], to);
      expectNear(out, to, shape, expected, {0, 0}, "cast " + nameOf(from) + " -> " + nameOf(to));
    }
  }
}

TEST(RefCast, KnownValues) {
  // A few conversions spelled out (checks naiveCast and roundExact as much as the kernel).
  auto cast1 = [](DType from, double v, DType to) {
    OpAttrs attrs;
    attrs.dtype = to;
    HostTensor out = run(OpKind::Cast, attrs, {make(from, {1}, {representable(from, v)})});
    return out.defined() ? load(out, 0) : kNaN;
  };
  EXPECT_EQ(cast1(DType::F32, -2.7, DType::I32), -2);
  EXPECT_EQ(cast1(DType::F32, 2.999, DType::I32), 2);
  EXPECT_EQ(cast1(DType::F32, 3e9, DType::I32), kIntMax);
  EXPECT_EQ(cast1(DType::F32, -3e9, DType::I32), kIntMin);
  EXPECT_EQ(cast1(DType::F32, kNaN, DType::I32), 0);
  EXPECT_EQ(cast1(DType::F32, kInf, DType::I32), kIntMax);
  EXPECT_EQ(cast1(DType::F32, 1 + std::ldexp(1, -8), DType::BF16), 1.0);
  EXPECT_EQ(cast1(DType::F32, 1 + 3 * std::ldexp(1, -8), DType::BF16), 1 + std::ldexp(1, -6));
  EXPECT_EQ(cast1(DType::F32, 1 + std::ldexp(1, -11), DType::F16), 1.0);
  EXPECT_EQ(cast1(DType::F32, 1 + 3 * std::ldexp(1, -11), DType::F16), 1 + std::ldexp(1, -9));
  EXPECT_EQ(cast1(DType::F32, 65520, DType::F16), kInf);
  EXPECT_EQ(cast1(DType::F32, 65519, DType::F16), 65504);
  EXPECT_EQ(cast1(DType::I32, 257, DType::BF16), 256);
  EXPECT_EQ(cast1(DType::I32, 16842753, DType::BF16), 16908288);  // 2^24 + 2^17: one rounding
  EXPECT_EQ(cast1(DType::F32, -0.0, DType::Bool), 0);
  EXPECT_EQ(cast1(DType::F32, kNaN, DType::Bool), 1);
  EXPECT_EQ(cast1(DType::F32, 1e-40, DType::Bool), 1);
  EXPECT_EQ(cast1(DType::I32, -5, DType::Bool), 1);
  EXPECT_EQ(cast1(DType::Bool, 1, DType::F16), 1);
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

TEST(RefLayout, BroadcastDimsMaps) {
  // Operand dim i goes to result dim dims[i]; size-1 operand dims repeat. Bytes copied exactly.
  struct Case {
    Shape in;
    std::vector<int64_t> dims;
    Shape out;
  } cases[] = {
      {{4}, {1}, {3, 4}},
      {{3}, {0}, {3, 4}},
      {{}, {}, {2, 3}},
      {{1}, {0}, {7}},
      {{3, 1}, {1, 2}, {2, 3, 5}},
      {{1, 5}, {0, 2}, {4, 3, 5}},
      {{3, 1, 5}, {0, 1, 2}, {3, 4, 5}},
      {{2, 1}, {0, 3}, {2, 3, 4, 6}},
      {{1, 1}, {1, 2}, {2, 1, 3}},
      {{6}, {2}, {1, 2, 6}},
  };
  std::mt19937 rng(501);
  for (const Case& c : cases) {
    for (DType dtype : kAllTypes) {
      std::vector<double> x = uniform(rng, dtype, numelOf(c.in), -100, 100);
      HostTensor input = make(dtype, c.in, x);
      OpAttrs attrs;
      attrs.dims = c.dims;
      attrs.shape = c.out;
      HostTensor out = run(OpKind::Broadcast, attrs, {input});
      std::vector<std::pair<int, int64_t>> src(numelOf(c.out));
      for (int64_t i = 0; i < numelOf(c.out); ++i) {
        std::vector<int64_t> o = unravel(i, c.out), idx(c.in.size());
        for (size_t k = 0; k < c.in.size(); ++k) idx[k] = c.in[k] == 1 ? 0 : o[c.dims[k]];
        src[i] = {0, ravel(idx, c.in)};
      }
      expectCopied(out, c.out, {&input}, src,
                   "broadcast " + tg::format_shape(c.in) + " -> " + tg::format_shape(c.out) +
                       " " + nameOf(dtype));
    }
  }
}

TEST(RefLayout, Reshape) {
  // Same elements in the same row-major order. Bytes exactly.
  std::mt19937 rng(502);
  const std::vector<std::pair<Shape, Shape>> cases{
      {{2, 3, 4}, {4, 6}}, {{2, 3, 4}, {24}}, {{24}, {1, 24, 1}}, {{1}, {}}, {{}, {1, 1}},
      {{6, 1}, {2, 3}}};
  for (const auto& [from, to] : cases) {
    for (DType dtype : kAllTypes) {
      HostTensor input = make(dtype, from, uniform(rng, dtype, numelOf(from), -100, 100));
      OpAttrs attrs;
      attrs.shape = to;
      HostTensor out = run(OpKind::Reshape, attrs, {input});
      std::vector<std::pair<int, int64_t>> src(numelOf(to));
      for (int64_t i = 0; i < numelOf(to); ++i) src[i] = {0, i};
      expectCopied(out, to, {&input}, src,
                   "reshape " + tg::format_shape(from) + " -> " + tg::format_shape(to));
    }
  }
}

TEST(RefLayout, TransposeEveryPermutation) {
  // Result dim i is operand dim perm[i]: every permutation of ranks 2, 3 and 4 (f32), and one
  // permutation per dtype. Bytes exactly.
  std::mt19937 rng(503);
  auto check = [&](const Shape& in, const std::vector<int64_t>& perm, DType dtype) {
    HostTensor input = make(dtype, in, uniform(rng, dtype, numelOf(in), -100, 100));
    Shape outShape;
    for (int64_t p : perm) outShape.push_back(in[p]);
    OpAttrs attrs;
    attrs.perm = perm;
    HostTensor out = run(OpKind::Transpose, attrs, {input});
    std::vector<std::pair<int, int64_t>> src(numelOf(outShape));
    for (int64_t i = 0; i < numelOf(outShape); ++i) {
      std::vector<int64_t> o = unravel(i, outShape), idx(in.size());
      for (size_t k = 0; k < perm.size(); ++k) idx[perm[k]] = o[k];
      src[i] = {0, ravel(idx, in)};
    }
    std::string permText;
    for (int64_t p : perm) permText += std::to_string(p) + " ";
    expectCopied(out, outShape, {&input}, src,
                 "transpose " + tg::format_shape(in) + " perm " + permText + nameOf(dtype));
  };
  for (const Shape& in : {Shape{5, 7}, Shape{2, 3, 4}, Shape{2, 3, 4, 5}}) {
    std::vector<int64_t> perm(in.size());
    std::iota(perm.begin(), perm.end(), 0);
    do check(in, perm, DType::F32);
    while (std::next_permutation(perm.begin(), perm.end()));
  }
  for (DType dtype : kAllTypes) check({3, 1, 4, 2}, {2, 0, 3, 1}, dtype);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// The naive reduction: every input element is added (or maxed) into the output element whose
/// index is its own with the reduced coordinates zeroed, in row-major order, in double (int64
/// for i32).
std::vector<double> naiveReduce(OpKind kind, const std::vector<double>& x, const Shape& shape,
                                const std::vector<int64_t>& axes, DType dtype, Shape& keptShape) {
  keptShape = shape;
  int64_t count = 1;
  for (int64_t a : axes) {
    keptShape[a] = 1;
    count *= shape[a];
  }
  const int64_t outN = numelOf(keptShape);
  const bool isMax = kind == OpKind::ReduceMax;
  std::vector<double> acc(outN, isMax ? -kInf : 0.0);
  std::vector<int64_t> iacc(outN, isMax ? kIntMin : 0);
  for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i) {
    std::vector<int64_t> idx = unravel(i, shape);
    for (int64_t a : axes) idx[a] = 0;
    int64_t o = ravel(idx, keptShape);
    if (dtype == DType::I32) {
      int64_t v = static_cast<int64_t>(x[i]);
      iacc[o] = isMax ? std::max(iacc[o], v) : iacc[o] + v;
    } else if (isMax) {
      acc[o] = (std::isnan(acc[o]) || std::isnan(x[i])) ? kNaN : std::max(acc[o], x[i]);
    } else {
      acc[o] += x[i];
    }
  }
  if (dtype == DType::I32) {
    for (int64_t o = 0; o < outN; ++o) acc[o] = wrap32(iacc[o]);
  } else if (kind == OpKind::ReduceMean) {
    for (double& a : acc) a /= static_cast<double>(count);
  }
  return acc;
}

TEST(RefReduce, SumMaxMeanOverAxesSets) {
  // Every subset of the axes of [3, 5, 7] (and of a shape with unit dims), with and without
  // keep_dims, for every accepted dtype. Accumulation is f64 rounded once: f32 1 ulp,
  // bf16/f16 1 ulp, max exact, i32 exact (wrapping: values near 1e9 overflow the sums).
  std::mt19937 rng(601);
  struct Case {
    Shape shape;
    std::vector<std::vector<int64_t>> axesSets;
  } cases[] = {
      {{3, 5, 7}, {{}, {0}, {1}, {2}, {0, 1}, {0, 2}, {1, 2}, {0, 1, 2}}},
      {{1, 4, 1, 3}, {{0}, {1, 3}, {0, 2}, {0, 1, 2, 3}}},
      {{9}, {{0}}},
  };
  for (const Case& c : cases) {
    const int64_t n = numelOf(c.shape);
    for (OpKind kind : {OpKind::ReduceSum, OpKind::ReduceMax, OpKind::ReduceMean}) {
      for (DType dtype : {DType::F32, DType::F16, DType::BF16, DType::I32}) {
        if (kind == OpKind::ReduceMean && dtype == DType::I32) continue;
        std::vector<double> x = dtype == DType::I32
                                    ? uniform(rng, dtype, n, -1500000000, 1500000000)
                                    : uniform(rng, dtype, n, -10, 10);
        HostTensor input = make(dtype, c.shape, x);
        for (const std::vector<int64_t>& axes : c.axesSets) {
          for (bool keep : {false, true}) {
            OpAttrs attrs;
            attrs.axes = axes;
            attrs.keepDims = keep;
            HostTensor out = run(kind, attrs, {input});
            Shape kept;
            std::vector<double> expected = naiveReduce(kind, x, c.shape, axes, dtype, kept);
            Shape expectedShape;
            for (size_t d = 0; d < c.shape.size(); ++d) {
              bool reduced = std::find(axes.begin(), axes.end(), int64_t(d)) != axes.end();
              if (!reduced) expectedShape.push_back(c.shape[d]);
              else if (keep) expectedShape.push_back(1);
            }
            std::string axesText;
            for (int64_t a : axes) axesText += std::to_string(a) + " ";
            Tol tol = kind == OpKind::ReduceMax ? Tol{0, 0} : Tol{1, 0};
            expectNear(out, dtype, expectedShape, expected, tol,
                       std::string(tg::graph::opName(kind)) + " " + nameOf(dtype) + " " +
                           tg::format_shape(c.shape) + " axes " + axesText +
                           (keep ? "keep_dims" : ""));
          }
        }
      }
    }
  }
}

TEST(RefReduce, IntegerSumWrapsAndMaxOfMinima) {
  // Exact: the i32 sum wraps once at the end, max of INT_MIN values is INT_MIN.
  const Shape shape{2, 3};
  HostTensor x = make(DType::I32, shape, {kIntMax, kIntMax, 2, kIntMin, kIntMin, kIntMin});
  OpAttrs attrs;
  attrs.axes = {1};
  expectNear(run(OpKind::ReduceSum, attrs, {x}), DType::I32, {2},
             {wrap32(int64_t{kIntMax} * 2 + 2), wrap32(int64_t{kIntMin} * 3)}, {}, "i32 sum");
  expectNear(run(OpKind::ReduceMax, attrs, {x}), DType::I32, {2}, {kIntMax, kIntMin}, {},
             "i32 max");
}

TEST(RefReduce, MaxPropagatesNaN) {
  // A NaN makes its own output element NaN and no other; exact elsewhere.
  std::mt19937 rng(602);
  const Shape shape{3, 5, 7};
  for (DType dtype : kFloatTypes) {
    std::vector<double> x = uniform(rng, dtype, numelOf(shape), -10, 10);
    x[ravel({1, 2, 3}, shape)] = kNaN;  // row (1, *, 3) for axes [1]
    x[ravel({2, 0, 0}, shape)] = kNaN;  // first element of a line: NaN must survive later maxes
    HostTensor input = make(dtype, shape, x);
    for (const std::vector<int64_t>& axes :
         std::vector<std::vector<int64_t>>{{1}, {0, 2}, {2}, {0, 1, 2}}) {
      OpAttrs attrs;
      attrs.axes = axes;
      HostTensor out = run(OpKind::ReduceMax, attrs, {input});
      Shape kept;
      std::vector<double> expected = naiveReduce(OpKind::ReduceMax, x, shape, axes, dtype, kept);
      Shape outShape;
      for (int64_t d = 0; d < 3; ++d)
        if (std::find(axes.begin(), axes.end(), d) == axes.end()) outShape.push_back(shape[d]);
      expectNear(out, dtype, outShape, expected, {0, 0}, "reduce_max NaN " + nameOf(dtype));
      if (axes == std::vector<int64_t>{1} && out.defined()) {
        EXPECT_TRUE(std::isnan(load(out, ravel({1, 3}, {3, 7}))));
        EXPECT_TRUE(std::isnan(load(out, ravel({2, 0}, {3, 7}))));
        EXPECT_FALSE(std::isnan(load(out, ravel({1, 2}, {3, 7}))));
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Softmax and layer_norm
//===----------------------------------------------------------------------===//

TEST(RefSoftmax, EachAxisOfRank3) {
  // exp(x - max) / sum along the axis, naive in double. The kernel takes exp of an f32 x - max
  // (|x - max| <= 8 here, rounded to 2^-22: up to ~4 ulp of the result, plus expf's error), so
  // f32 8 ulp; bf16/f16 1 ulp (their x - max is exact in f32).
  std::mt19937 rng(701);
  const Shape shape{3, 5, 7};
  const int64_t n = numelOf(shape);
  for (DType dtype : kFloatTypes) {
    std::vector<double> x = uniform(rng, dtype, n, -4, 4);
    HostTensor input = make(dtype, shape, x);
    for (int64_t axis = 0; axis < 3; ++axis) {
      OpAttrs attrs;
      attrs.axis = axis;
      HostTensor out = run(OpKind::Softmax, attrs, {input});
      std::vector<double> expected(n);
      for (int64_t i = 0; i < n; ++i) {
        std::vector<int64_t> idx = unravel(i, shape);
        double m = -kInf;
        for (int64_t k = 0; k < shape[axis]; ++k) {
          idx[axis] = k;
          m = std::max(m, x[ravel(idx, shape)]);
        }
        double sum = 0;
        for (int64_t k = 0; k < shape[axis]; ++k) {
          idx[axis] = k;
          sum += std::exp(x[ravel(idx, shape)] - m);
        }
        expected[i] = std::exp(x[i] - m) / sum;
      }
      expectNear(out, dtype, shape, expected, dtype == DType::F32 ? Tol{8, 0} : Tol{1, 0},
                 "softmax axis " + std::to_string(axis) + " " + nameOf(dtype));
    }
  }
}

TEST(RefLayerNorm, WithAndWithoutWeightAndBias) {
  // (x - mean) / sqrt(var + eps) * w + b over the last dim, biased variance, naive in double.
  // f64 statistics rounded once: 1 ulp for every dtype (or 1e-12 absolute, for f32 results
  // that the bias cancels to near zero, where double-level differences exceed an f32 ulp).
  std::mt19937 rng(801);
  for (const Shape& shape : {Shape{4, 6, 33}, Shape{64}, Shape{5, 1}}) {
    const int64_t len = shape.back(), n = numelOf(shape);
    for (DType dtype : kFloatTypes) {
      std::vector<double> x = uniform(rng, dtype, n, -4, 6);
      std::vector<double> w = uniform(rng, dtype, len, -2, 2), b = uniform(rng, dtype, len, -1, 1);
      for (bool hasWeight : {false, true}) {
        for (bool hasBias : {false, true}) {
          OpAttrs attrs;
          attrs.hasWeight = hasWeight;
          attrs.hasBias = hasBias;
          attrs.epsilon = 1e-5;
          std::vector<HostTensor> operands{make(dtype, shape, x)};
          if (hasWeight) operands.push_back(make(dtype, {len}, w));
          if (hasBias) operands.push_back(make(dtype, {len}, b));
          HostTensor out = run(OpKind::LayerNorm, attrs, operands);
          std::vector<double> expected(n);
          for (int64_t row = 0; row < n / len; ++row) {
            double mean = 0, var = 0;
            for (int64_t k = 0; k < len; ++k) mean += x[row * len + k];
            mean /= len;
            for (int64_t k = 0; k < len; ++k)
              var += (x[row * len + k] - mean) * (x[row * len + k] - mean);
            var /= len;
            for (int64_t k = 0; k < len; ++k) {
              double y = (x[row * len + k] - mean) / std::sqrt(var + attrs.epsilon);
              if (hasWeight) y *= w[k];
              if (hasBias) y += b[k];
              expected[row * len + k] = y;
            }
          }
          expectNear(out, dtype, shape, expected,
                     {1, dtype == DType::F32 ? 1e-12 : 0.0},
                     "layer_norm " + tg::format_shape(shape) + " " + nameOf(dtype) +
                         (hasWeight ? " weight" : "") + (hasBias ? " bias" : ""));
        }
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

TEST(RefMatmul, TransposesBatchesSharedOperandsOddSizes) {
  // Naive triple loop in double over the logical (transposed) operands. f64 accumulation
  // rounded once: 1 ulp for every dtype, plus 1e-12 * K absolute for sums that cancel to ~0.
  std::mt19937 rng(901);
  struct Case {
    Shape batchA, batchB;  // batch dims; empty = rank 2
    int64_t m, k, n;
  } cases[] = {
      {{}, {}, 1, 1, 1},    {{}, {}, 17, 33, 65}, {{}, {}, 4, 1, 6},   {{2}, {2}, 1, 1, 1},
      {{2, 3}, {2, 3}, 5, 7, 3}, {{}, {4}, 6, 9, 5}, {{4}, {}, 6, 9, 5}, {{2, 2}, {}, 3, 8, 2},
      {{}, {3, 2}, 2, 5, 7},
  };
  for (const Case& c : cases) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        for (DType dtype : kFloatTypes) {
          Shape sa = c.batchA, sb = c.batchB;
          sa.push_back(ta ? c.k : c.m);
          sa.push_back(ta ? c.m : c.k);
          sb.push_back(tb ? c.n : c.k);
          sb.push_back(tb ? c.k : c.n);
          std::vector<double> a = uniform(rng, dtype, numelOf(sa), -2, 2);
          std::vector<double> b = uniform(rng, dtype, numelOf(sb), -2, 2);
          OpAttrs attrs;
          attrs.transposeA = ta;
          attrs.transposeB = tb;
          HostTensor out = run(OpKind::Matmul, attrs, {make(dtype, sa, a), make(dtype, sb, b)});
          Shape batch = c.batchA.size() >= c.batchB.size() ? c.batchA : c.batchB;
          const int64_t batches = numelOf(batch);
          const int64_t strideA = c.batchA.empty() ? 0 : c.m * c.k;
          const int64_t strideB = c.batchB.empty() ? 0 : c.k * c.n;
          std::vector<double> expected(batches * c.m * c.n);
          for (int64_t bi = 0; bi < batches; ++bi)
            for (int64_t i = 0; i < c.m; ++i)
              for (int64_t j = 0; j < c.n; ++j) {
                double acc = 0;
                for (int64_t p = 0; p < c.k; ++p) {
                  double av = ta ? a[bi * strideA + p * c.m + i] : a[bi * strideA + i * c.k + p];
                  double bv = tb ? b[bi * strideB + j * c.k + p] : b[bi * strideB + p * c.n + j];
                  acc += av * bv;
                }
                expected[(bi * c.m + i) * c.n + j] = acc;
              }
          Shape outShape = batch;
          outShape.push_back(c.m);
          outShape.push_back(c.n);
          expectNear(out, dtype, outShape, expected, {1, 1e-12 * c.k},
                     "matmul " + tg::format_shape(sa) + (ta ? "^T" : "") + " @ " +
                         tg::format_shape(sb) + (tb ? "^T" : "") + " " + nameOf(dtype));
        }
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// HostTensor's documented conversions (the constructors every kernel result goes through)
//===----------------------------------------------------------------------===//

TEST(RefHostTensor, FilledFromFloatsFromIntsConvertAsDocumented) {
  // HostTensor.h: round-to-nearest-even for bf16/f16, truncation toward zero with saturation
  // for i32 (NaN: 0), != 0 for bool, for filled(), fromFloats() and fromInts() alike. Exact.
  auto expectValues = [](const HostTensor& t, DType dtype, const std::vector<double>& expected,
                         const std::string& what) {
    expectNear(t, dtype, {static_cast<int64_t>(expected.size())}, expected, {0, 0}, what);
  };
  std::mt19937 rng(1201);
  const std::vector<double> r = uniform(rng, DType::F32, 1, -1e6, 1e6);
  struct {
    DType dtype;
    double value, expected;
  } fills[] = {
      {DType::I32, 3e9, kIntMax},     {DType::I32, -3e9, kIntMin},
      {DType::I32, kNaN, 0},          {DType::I32, -2.7, -2},
      {DType::I32, 2147483647.5, kIntMax}, {DType::I32, 16777217.0, 16777217},
      {DType::I32, r[0], std::trunc(r[0])},
      {DType::Bool, 0.5, 1},          {DType::Bool, -0.0, 0},
      {DType::F16, 65520, kInf},      {DType::BF16, 1 + std::ldexp(1, -8), 1},
      {DType::F32, r[0], r[0]},
  };
  for (const auto& f : fills)
    expectValues(HostTensor::filled(f.dtype, {3}, f.value), f.dtype,
                 std::vector<double>(3, f.expected),
                 "filled " + nameOf(f.dtype) + " " + std::to_string(f.value));
  const std::vector<float> floats{2.9f, -2.9f, 3e9f, std::nanf(""), -INFINITY, 0.5f};
  expectValues(HostTensor::fromFloats(DType::I32, {6}, floats), DType::I32,
               {2, -2, kIntMax, 0, kIntMin, 0}, "fromFloats i32");
  expectValues(HostTensor::fromFloats(DType::Bool, {6}, floats), DType::Bool, {1, 1, 1, 1, 1, 1},
               "fromFloats bool");
  const std::vector<int32_t> ints{16842753, 257, -259, 65519, 65520, 2049, kIntMax};
  expectValues(HostTensor::fromInts(DType::BF16, {7}, ints), DType::BF16,
               {16908288, 256, -260, 65536, 65536, 2048, 2147483648.0}, "fromInts bf16");
  expectValues(HostTensor::fromInts(DType::F16, {7}, ints), DType::F16,
               {kInf, 257, -259, 65504, kInf, 2048, kInf}, "fromInts f16");
  expectValues(HostTensor::fromInts(DType::F32, {7}, ints), DType::F32,
               {16842752, 257, -259, 65519, 65520, 2049, 2147483648.0}, "fromInts f32");
}

//===----------------------------------------------------------------------===//
// The oracle's own helpers
//===----------------------------------------------------------------------===//

TEST(RefOracle, RoundExactAndOrdinal) {
  // The test's own rounding and ulp distance, against values worked out by hand, so that a
  // wrong oracle cannot hide a wrong kernel.
  EXPECT_EQ(roundExact(DType::BF16, 1 + std::ldexp(1, -8)), 1.0);
  EXPECT_EQ(roundExact(DType::BF16, 1 + std::ldexp(1, -8) + 1e-9), 1 + std::ldexp(1, -7));
  EXPECT_EQ(roundExact(DType::F16, 65519.0), 65504.0);
  EXPECT_EQ(roundExact(DType::F16, 65520.0), kInf);
  EXPECT_EQ(roundExact(DType::F16, std::ldexp(1, -25)), 0.0);
  EXPECT_EQ(roundExact(DType::F16, 3 * std::ldexp(1, -25)), std::ldexp(1, -23));
  EXPECT_EQ(roundExact(DType::F32, 16777217.0), 16777216.0);
  EXPECT_EQ(roundExact(DType::BF16, 16842753.0), 16908288.0);
  EXPECT_EQ(ordinal(DType::F16, 1.0) - ordinal(DType::F16, 1 - std::ldexp(1, -11)), 1);
  EXPECT_EQ(ordinal(DType::BF16, 0.0), ordinal(DType::BF16, -0.0));
  EXPECT_EQ(ordinal(DType::F32, kInf) - ordinal(DType::F32, std::numeric_limits<float>::max()),
            1);
  EXPECT_EQ(ordinal(DType::F16, std::ldexp(1, -24)) - ordinal(DType::F16, -std::ldexp(1, -24)),
            2);
}

}  // namespace
