//===- RefElementwiseTest.cpp - Reference elementwise ops against naive loops ===//
//
// This file: unary, binary, compare/select and cast ops (RefStructureTest.cpp has layout ops,
// reductions, softmax, layer_norm, matmul, HostTensor conversions and the oracle's helpers).
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
#include "RefTestSupport.h"

namespace {

using namespace reftest;

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
      {OpKind::Sin, GeluApprox::Erf, "sin", -100, 100, [](double x) { return std::sin(x); },
       {2, 1e-7}, {1, 0}},
      {OpKind::Cos, GeluApprox::Erf, "cos", -100, 100, [](double x) { return std::cos(x); },
       {2, 1e-7}, {1, 0}},
      {OpKind::Erf, GeluApprox::Erf, "erf", -4, 4, [](double x) { return std::erf(x); },
       {2, 0}, {1, 0}},
      {OpKind::Exp2, GeluApprox::Erf, "exp2", -20, 20, [](double x) { return std::exp2(x); },
       {2, 0}, {1, 0}},
      {OpKind::Log2, GeluApprox::Erf, "log2", 0.01, 100, [](double x) { return std::log2(x); },
       {2, 0}, {1, 0}},
      {OpKind::Floor, GeluApprox::Erf, "floor", -50, 50, [](double x) { return std::floor(x); },
       {0, 0}, {0, 0}},
      {OpKind::Ceil, GeluApprox::Erf, "ceil", -50, 50, [](double x) { return std::ceil(x); },
       {0, 0}, {0, 0}},
      {OpKind::Round, GeluApprox::Erf, "round", -50, 50, [](double x) { return std::nearbyint(x); },
       {0, 0}, {0, 0}},
      {OpKind::Sign, GeluApprox::Erf, "sign", -50, 50,
       [](double x) { return std::isnan(x) ? x : x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0; }, {0, 0}, {0, 0}},
      {OpKind::Silu, GeluApprox::Erf, "silu", -12, 12,
       [](double x) { return x / (1.0 + std::exp(-x)); }, {3, 0}, {1, 0}},
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

TEST(RefUnary, RoundingHalvesAndSignOfZeros) {
  // round: halves to even; floor/ceil keep -0; sign(-0) is +0, sign(NaN) NaN; i32 sign.
  const std::vector<double> x{0.5, 1.5, 2.5, -0.5, -1.5, -2.5, -0.0, 0.0, 3.25, -3.75};
  const Shape shape{static_cast<int64_t>(x.size())};
  HostTensor in = make(DType::F32, shape, x);
  expectNear(run(OpKind::Round, {}, {in}), DType::F32, shape, {0, 2, 2, -0.0, -2, -2, -0.0, 0, 3, -4}, {0, 0},
             "round");
  expectNear(run(OpKind::Floor, {}, {in}), DType::F32, shape, {0, 1, 2, -1, -2, -3, -0.0, 0, 3, -4}, {0, 0},
             "floor");
  expectNear(run(OpKind::Ceil, {}, {in}), DType::F32, shape, {1, 2, 3, -0.0, -1, -2, -0.0, 0, 4, -3}, {0, 0},
             "ceil");
  HostTensor s = run(OpKind::Sign, {}, {make(DType::F32, {3}, {-0.0, kNaN, -7})});
  EXPECT_EQ(std::signbit(load(s, 0)), false);
  EXPECT_TRUE(std::isnan(load(s, 1)));
  EXPECT_EQ(load(s, 2), -1);
  expectNear(run(OpKind::Sign, {}, {make(DType::I32, {4}, {kIntMin, 0, 5, -1})}), DType::I32, {4}, {-1, 0, 1, -1},
             {0, 0}, "i32 sign");
}

TEST(RefElementwise, ClampIsMinimumOfMaximum) {
  // NaN in x stays NaN; lo > hi gives hi; i32 exact.
  HostTensor x = make(DType::F32, {5}, {kNaN, -5, 0.25, 9, 1});
  HostTensor lo = make(DType::F32, {5}, {0, -1, -1, -1, 3});
  HostTensor hi = make(DType::F32, {5}, {1, 1, 1, 1, 2});
  HostTensor r = run(OpKind::Clamp, {}, {x, lo, hi});
  EXPECT_TRUE(std::isnan(load(r, 0)));
  for (int64_t i = 1; i < 5; ++i) EXPECT_EQ(load(r, i), (std::vector<double>{0, -1, 0.25, 1, 2})[i]) << i;
  HostTensor xi = make(DType::I32, {3}, {kIntMin, 7, kIntMax});
  HostTensor li = make(DType::I32, {3}, {-3, -3, -3}), hiI = make(DType::I32, {3}, {3, 3, 3});
  expectNear(run(OpKind::Clamp, {}, {xi, li, hiI}), DType::I32, {3}, {-3, 3, 3}, {0, 0}, "i32 clamp");
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


}  // namespace
