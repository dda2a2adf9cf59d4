//===- InterpreterTest.cpp - tg::ref::interpret on parsed tg modules ------===//
//
// Small tg functions parsed from MLIR text (a chain, a diamond, a tg.fusion with two results,
// splat and dense constants, every dtype) run through the interpreter on fresh random inputs
// (one seeded std::mt19937 per test) and are compared with naive loops written here, in double,
// rounded to the dtype where an op's result is. Tolerances are stated in each test. Then the
// errors: wrong argument count, type or shape, a body-less function, an op the interpreter
// cannot run, each a tg::Error whose message names the problem.
//
//===----------------------------------------------------------------------===//
#include "HostValues.h"
#include "tg/Reference/Interpreter.h"

#include "tg/Compiler/Context.h"
#include "tg/Support/Error.h"
#include "tg/Support/Half.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using tg::DType;
using tg::Shape;
using tg::ref::HostTensor;

const double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int32_t kIntMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kIntMax = std::numeric_limits<int32_t>::max();

using tgtest::roundExact;

/// Units in the last place of `dtype` at the (representable, finite) value `v`.
double ulpOf(DType dtype, double v) {
  int precision = dtype == DType::F32 ? 24 : dtype == DType::F16 ? 11 : 8;
  int minExp = dtype == DType::F16 ? -14 : -126;
  int e = v == 0 ? minExp : std::max(std::ilogb(v), minExp);
  return std::ldexp(1.0, e - (precision - 1));
}

using tgtest::load;
using tgtest::store;

HostTensor make(DType dtype, const Shape& shape, const std::vector<double>& values) {
  HostTensor t(dtype, shape);
  EXPECT_EQ(static_cast<int64_t>(values.size()), t.numel());
  for (int64_t i = 0; i < t.numel(); ++i) store(t, i, values[i]);
  return t;
}

std::vector<double> random(std::mt19937& rng, DType dtype, int64_t n, double lo, double hi) {
  return tgtest::uniformValues(rng, dtype, n, lo, hi);
}

/// Parses `text` into a module in tg's shared context.
mlir::OwningOpRef<mlir::ModuleOp> parse(const std::string& text) {
  mlir::MLIRContext& context = tg::compiler::sharedContext();
  return mlir::parseSourceString<mlir::ModuleOp>(text, &context);
}

mlir::func::FuncOp lookup(mlir::ModuleOp module, const char* name) {
  return module.lookupSymbol<mlir::func::FuncOp>(name);
}

/// Element-wise check: `actual` has `dtype` and `shape`, and each element is within
/// atol + rtol * |expected| of `expected` (NaN where expected is NaN; exact for i32/bool).
void expectClose(const HostTensor& actual, DType dtype, const Shape& shape,
                 const std::vector<double>& expected, double atol, double rtol,
                 const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_TRUE(actual.defined());
  ASSERT_EQ(actual.dtype(), dtype);
  ASSERT_EQ(actual.shape(), shape);
  ASSERT_EQ(static_cast<int64_t>(expected.size()), actual.numel());
  int failures = 0;
  for (int64_t i = 0; i < actual.numel() && failures < 8; ++i) {
    double a = load(actual, i), e = expected[i];
    bool ok = std::isnan(e) ? std::isnan(a)
                            : (!std::isnan(a) && std::fabs(a - e) <= atol + rtol * std::fabs(e));
    if (!ok) {
      ++failures;
      ADD_FAILURE() << "element " << i << ": got " << a << ", expected " << e << " (atol "
                    << atol << ", rtol " << rtol << ")";
    }
  }
}

std::vector<HostTensor> interpretVec(mlir::func::FuncOp func, const std::vector<HostTensor>& args) {
  return tg::ref::interpret(func, args);
}

/// Runs `interpret` expecting a tg::Error; returns its message (empty if none was thrown).
std::string interpretError(mlir::func::FuncOp func, const std::vector<HostTensor>& args) {
  try {
    tg::ref::interpret(func, args);
  } catch (const tg::Error& e) {
    return e.message();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw something other than tg::Error: " << e.what();
    return "";
  }
  ADD_FAILURE() << "interpret did not throw";
  return "";
}

void expectContains(const std::string& message, const std::vector<std::string>& parts) {
  for (const std::string& part : parts)
    EXPECT_NE(message.find(part), std::string::npos)
        << "message \"" << message << "\" lacks \"" << part << "\"";
}

const char* kChain = R"mlir(
func.func @chain(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tg.mul %x, %y : tensor<4x8xf32>
  %1 = tg.exp %0 : tensor<4x8xf32>
  %2 = tg.sub %1, %x : tensor<4x8xf32>
  %3 = tg.tanh %2 : tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}
)mlir";

TEST(Interpreter, Chain) {
  // tanh(exp(x * y) - x): four f32 ops, each rounded once (exp, tanh within 2 ulp); the sub can
  // cancel to ~0, so 1e-6 absolute + 1e-6 relative (about 8 ulp).
  auto module = parse(kChain);
  ASSERT_TRUE(module);
  std::mt19937 rng(1001);
  std::vector<double> x = random(rng, DType::F32, 32, -1, 1), y = random(rng, DType::F32, 32, -1, 1);
  std::vector<HostTensor> results = interpretVec(
      lookup(*module, "chain"), {make(DType::F32, {4, 8}, x), make(DType::F32, {4, 8}, y)});
  ASSERT_EQ(results.size(), 1u);
  std::vector<double> expected(32);
  for (int i = 0; i < 32; ++i) expected[i] = std::tanh(std::exp(x[i] * y[i]) - x[i]);
  expectClose(results[0], DType::F32, {4, 8}, expected, 1e-6, 1e-6, "chain");
}

TEST(Interpreter, Diamond) {
  // s = x + broadcast(b) feeds two branches, relu(s) and exp(-s), joined by a mul and reduced
  // over the rows. s itself is also returned: one f32 add, exact. The reduced result: five
  // f32-rounded terms (each within a few ulp) summed in f64: 1e-6 absolute + 1e-6 relative.
  auto module = parse(R"mlir(
func.func @diamond(%x: tensor<3x5xf32>, %b: tensor<5xf32>) -> (tensor<3xf32>, tensor<3x5xf32>) {
  %0 = tg.broadcast %b dims = [1] : tensor<5xf32> to tensor<3x5xf32>
  %1 = tg.add %x, %0 : tensor<3x5xf32>
  %2 = tg.relu %1 : tensor<3x5xf32>
  %3 = tg.neg %1 : tensor<3x5xf32>
  %4 = tg.exp %3 : tensor<3x5xf32>
  %5 = tg.mul %2, %4 : tensor<3x5xf32>
  %6 = tg.reduce_sum %5 axes = [1] : tensor<3x5xf32> to tensor<3xf32>
  return %6, %1 : tensor<3xf32>, tensor<3x5xf32>
}
)mlir");
  ASSERT_TRUE(module);
  std::mt19937 rng(1002);
  std::vector<double> x = random(rng, DType::F32, 15, -3, 3), b = random(rng, DType::F32, 5, -2, 2);
  std::vector<HostTensor> results = interpretVec(
      lookup(*module, "diamond"), {make(DType::F32, {3, 5}, x), make(DType::F32, {5}, b)});
  ASSERT_EQ(results.size(), 2u);
  std::vector<double> sum(3, 0.0), s(15);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) {
      s[i * 5 + j] = static_cast<float>(x[i * 5 + j] + b[j]);  // the f32 add
      double v = s[i * 5 + j];
      sum[i] += std::max(v, 0.0) * std::exp(-v);
    }
  expectClose(results[0], DType::F32, {3}, sum, 1e-6, 1e-6, "diamond reduce_sum");
  expectClose(results[1], DType::F32, {3, 5}, s, 0, 0, "diamond add");
}

TEST(Interpreter, FusionWithTwoResults) {
  // A tg.fusion yielding tanh(x + y) in f32 and x + y cast to bf16, then a mul outside the
  // region. The cast is exact (one rounding of the f32 sum); the f32 results 4 ulp-ish:
  // 1e-6 absolute + 1e-6 relative.
  auto module = parse(R"mlir(
func.func @fused(%x: tensor<16xf32>, %y: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xbf16>) {
  %r:2 = tg.fusion elementwise (%x, %y) : (tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<16xbf16>) {
  ^bb0(%a: tensor<16xf32>, %b: tensor<16xf32>):
    %s = tg.add %a, %b : tensor<16xf32>
    %t = tg.tanh %s : tensor<16xf32>
    %c = tg.cast %s : tensor<16xf32> to tensor<16xbf16>
    tg.yield %t, %c : tensor<16xf32>, tensor<16xbf16>
  }
  %z = tg.mul %r#0, %x : tensor<16xf32>
  return %z, %r#1 : tensor<16xf32>, tensor<16xbf16>
}
)mlir");
  ASSERT_TRUE(module);
  std::mt19937 rng(1003);
  std::vector<double> x = random(rng, DType::F32, 16, -2, 2), y = random(rng, DType::F32, 16, -2, 2);
  std::vector<HostTensor> results = interpretVec(
      lookup(*module, "fused"), {make(DType::F32, {16}, x), make(DType::F32, {16}, y)});
  ASSERT_EQ(results.size(), 2u);
  std::vector<double> z(16), c(16);
  for (int i = 0; i < 16; ++i) {
    double s = static_cast<float>(x[i] + y[i]);
    z[i] = std::tanh(s) * x[i];
    c[i] = roundExact(DType::BF16, s);
  }
  expectClose(results[0], DType::F32, {16}, z, 1e-6, 1e-6, "fusion result 0, used outside");
  expectClose(results[1], DType::BF16, {16}, c, 0, 0, "fusion result 1 (bf16 cast)");
}

TEST(Interpreter, SplatAndDenseConstants) {
  // Splat and dense constants of every dtype. x * 1.5 + d: two f32 ops, each one rounding:
  // exact against the naive rounded steps. i32 add wraps: exact. The bf16/f16 literals are the
  // decimal values rounded to the dtype: exact (0 tolerance).
  auto module = parse(R"mlir(
func.func @constants(%x: tensor<2x3xf32>, %i: tensor<4xi32>)
    -> (tensor<2x3xf32>, tensor<4xi32>, tensor<3xbf16>, tensor<2x2xf16>, tensor<4xi1>, tensor<f32>) {
  %c = tg.constant dense<1.5> : tensor<2x3xf32>
  %d = tg.constant dense<[[1.0, -2.0, 3.25], [0.5, 4.0, -8.0]]> : tensor<2x3xf32>
  %0 = tg.mul %x, %c : tensor<2x3xf32>
  %1 = tg.add %0, %d : tensor<2x3xf32>
  %k = tg.constant dense<[7, -3, 2147483647, -2147483648]> : tensor<4xi32>
  %2 = tg.add %i, %k : tensor<4xi32>
  %b = tg.constant dense<-0.1> : tensor<3xbf16>
  %h = tg.constant dense<[[1.0, 2.5], [65504.0, 0.1]]> : tensor<2x2xf16>
  %m = tg.constant dense<[true, false, false, true]> : tensor<4xi1>
  %s = tg.constant dense<-3.75> : tensor<f32>
  return %1, %2, %b, %h, %m, %s : tensor<2x3xf32>, tensor<4xi32>, tensor<3xbf16>, tensor<2x2xf16>, tensor<4xi1>, tensor<f32>
}
)mlir");
  ASSERT_TRUE(module);
  std::mt19937 rng(1004);
  std::vector<double> x = random(rng, DType::F32, 6, -10, 10);
  std::vector<double> i = random(rng, DType::I32, 4, -1000, 1000);
  i[2] = 5;   // + INT_MAX wraps
  i[3] = -5;  // + INT_MIN wraps
  std::vector<HostTensor> results = interpretVec(
      lookup(*module, "constants"), {make(DType::F32, {2, 3}, x), make(DType::I32, {4}, i)});
  ASSERT_EQ(results.size(), 6u);
  const double d[6] = {1.0, -2.0, 3.25, 0.5, 4.0, -8.0};
  std::vector<double> y(6);
  for (int k = 0; k < 6; ++k) y[k] = static_cast<float>(static_cast<float>(x[k] * 1.5) + d[k]);
  expectClose(results[0], DType::F32, {2, 3}, y, 0, 0, "splat and dense f32");
  const int64_t kc[4] = {7, -3, kIntMax, kIntMin};
  std::vector<double> sum(4);
  for (int k = 0; k < 4; ++k)
    sum[k] = static_cast<int32_t>(static_cast<uint32_t>(static_cast<int64_t>(i[k]) + kc[k]));
  expectClose(results[1], DType::I32, {4}, sum, 0, 0, "dense i32 + wrap");
  EXPECT_EQ(sum[2], kIntMin + 4);
  expectClose(results[2], DType::BF16, {3}, std::vector<double>(3, roundExact(DType::BF16, -0.1)),
              0, 0, "splat bf16");
  expectClose(results[3], DType::F16, {2, 2}, {1.0, 2.5, 65504.0, roundExact(DType::F16, 0.1)}, 0,
              0, "dense f16");
  expectClose(results[4], DType::Bool, {4}, {1, 0, 0, 1}, 0, 0, "dense i1");
  expectClose(results[5], DType::F32, {}, {-3.75}, 0, 0, "rank-0 splat");
}

TEST(Interpreter, EveryDType) {
  // One op or more per dtype: f16 add (f32 sum rounded again: 1 ulp), bf16 mul (the product of
  // two bf16 is exact in f32, so one rounding: exact), i32 div (truncating, x / 0 = 0: exact),
  // i32 cmp to i1, i1 cmp (ne as xor), select on i1, i1 -> f32 cast: exact.
  auto module = parse(R"mlir(
func.func @dtypes(%h: tensor<6xf16>, %g: tensor<6xf16>, %p: tensor<6xbf16>, %q: tensor<6xbf16>,
                  %i: tensor<6xi32>, %j: tensor<6xi32>, %m: tensor<6xi1>)
    -> (tensor<6xf16>, tensor<6xbf16>, tensor<6xi32>, tensor<6xi1>, tensor<6xi32>, tensor<6xf32>) {
  %0 = tg.add %h, %g : tensor<6xf16>
  %1 = tg.mul %p, %q : tensor<6xbf16>
  %2 = tg.div %i, %j : tensor<6xi32>
  %3 = tg.cmp lt, %i, %j : tensor<6xi32>
  %4 = tg.cmp ne, %3, %m : tensor<6xi1>
  %5 = tg.select %4, %i, %j : tensor<6xi1>, tensor<6xi32>
  %6 = tg.cast %m : tensor<6xi1> to tensor<6xf32>
  return %0, %1, %2, %4, %5, %6 : tensor<6xf16>, tensor<6xbf16>, tensor<6xi32>, tensor<6xi1>, tensor<6xi32>, tensor<6xf32>
}
)mlir");
  ASSERT_TRUE(module);
  std::mt19937 rng(1005);
  std::vector<double> h = random(rng, DType::F16, 6, -100, 100), g = random(rng, DType::F16, 6, -100, 100);
  std::vector<double> p = random(rng, DType::BF16, 6, -100, 100), q = random(rng, DType::BF16, 6, -100, 100);
  std::vector<double> i = random(rng, DType::I32, 6, -1000, 1000), j = random(rng, DType::I32, 6, -20, 20);
  std::vector<double> m = random(rng, DType::Bool, 6, 0, 1);
  j[0] = 0;  // x / 0 = 0
  i[1] = -7;
  j[1] = 2;  // truncation toward zero: -3
  std::vector<HostTensor> results = interpretVec(
      lookup(*module, "dtypes"),
      {make(DType::F16, {6}, h), make(DType::F16, {6}, g), make(DType::BF16, {6}, p),
       make(DType::BF16, {6}, q), make(DType::I32, {6}, i), make(DType::I32, {6}, j),
       make(DType::Bool, {6}, m)});
  ASSERT_EQ(results.size(), 6u);
  std::vector<double> sum(6), prod(6), quot(6), ne(6), sel(6), cast(6);
  for (int k = 0; k < 6; ++k) {
    sum[k] = roundExact(DType::F16, h[k] + g[k]);
    prod[k] = roundExact(DType::BF16, p[k] * q[k]);
    int64_t a = static_cast<int64_t>(i[k]), b = static_cast<int64_t>(j[k]);
    quot[k] = b == 0 ? 0 : static_cast<double>((a < 0) != (b < 0) ? -(std::llabs(a) / std::llabs(b))
                                                                   : std::llabs(a) / std::llabs(b));
    bool lt = a < b;
    ne[k] = lt != (m[k] != 0);
    sel[k] = ne[k] != 0 ? i[k] : j[k];
    cast[k] = m[k];
  }
  EXPECT_EQ(quot[1], -3);
  // f16: 1 ulp of the result.
  {
    SCOPED_TRACE("f16 add");
    ASSERT_EQ(results[0].dtype(), DType::F16);
    for (int k = 0; k < 6; ++k)
      EXPECT_LE(std::fabs(load(results[0], k) - sum[k]), ulpOf(DType::F16, sum[k])) << k;
  }
  expectClose(results[1], DType::BF16, {6}, prod, 0, 0, "bf16 mul");
  expectClose(results[2], DType::I32, {6}, quot, 0, 0, "i32 div");
  expectClose(results[3], DType::Bool, {6}, ne, 0, 0, "i1 cmp ne");
  expectClose(results[4], DType::I32, {6}, sel, 0, 0, "select i32 on i1");
  expectClose(results[5], DType::F32, {6}, cast, 0, 0, "cast i1 -> f32");
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST(Interpreter, WrongArgumentCount) {
  auto module = parse(kChain);
  ASSERT_TRUE(module);
  std::mt19937 rng(1101);
  HostTensor x = make(DType::F32, {4, 8}, random(rng, DType::F32, 32, -1, 1));
  expectContains(interpretError(lookup(*module, "chain"), {x}),
                 {"@chain", "takes 2 arguments", "got 1"});
  expectContains(interpretError(lookup(*module, "chain"), {x, x, x}),
                 {"@chain", "takes 2 arguments", "got 3"});
  expectContains(interpretError(lookup(*module, "chain"), {}), {"takes 2 arguments", "got 0"});
}

TEST(Interpreter, WrongArgumentType) {
  auto module = parse(kChain);
  ASSERT_TRUE(module);
  std::mt19937 rng(1102);
  HostTensor good = make(DType::F32, {4, 8}, random(rng, DType::F32, 32, -1, 1));
  HostTensor half = make(DType::F16, {4, 8}, random(rng, DType::F16, 32, -1, 1));
  HostTensor transposed = make(DType::F32, {8, 4}, random(rng, DType::F32, 32, -1, 1));
  HostTensor ints = make(DType::I32, {4, 8}, random(rng, DType::I32, 32, -9, 9));
  expectContains(interpretError(lookup(*module, "chain"), {half, good}),
                 {"argument 0", "@chain", "f32[4, 8]", "f16[4, 8]"});
  expectContains(interpretError(lookup(*module, "chain"), {good, transposed}),
                 {"argument 1", "@chain", "f32[4, 8]", "f32[8, 4]"});
  expectContains(interpretError(lookup(*module, "chain"), {good, ints}),
                 {"argument 1", "f32[4, 8]", "i32[4, 8]"});
}

TEST(Interpreter, FunctionWithoutBody) {
  auto module = parse(R"mlir(
func.func private @external(tensor<4xf32>) -> tensor<4xf32>
)mlir");
  ASSERT_TRUE(module);
  std::mt19937 rng(1103);
  HostTensor x = make(DType::F32, {4}, random(rng, DType::F32, 4, -1, 1));
  expectContains(interpretError(lookup(*module, "external"), {x}), {"@external", "no body"});
}

TEST(Interpreter, OpItCannotRun) {
  auto module = parse(R"mlir(
func.func private @callee(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func @caller(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @callee(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
)mlir");
  ASSERT_TRUE(module);
  std::mt19937 rng(1104);
  HostTensor x = make(DType::F32, {4}, random(rng, DType::F32, 4, -1, 1));
  expectContains(interpretError(lookup(*module, "caller"), {x}),
                 {"cannot evaluate", "func.call"});
}

}  // namespace

namespace {

// f32InsideFusions: an elementwise fusion keeps bf16 values in f32 until its yield, as the
// generated kernels do; op by op, every result rounds to bf16.
TEST(InterpreterFusionSemantics, Bf16StaysInF32InsideAFusion) {
  const char* ir = R"mlir(
    func.func @f(%a: tensor<2xbf16>, %b: tensor<2xbf16>) -> tensor<2xbf16> {
      %r = tg.fusion elementwise(%a, %b) : (tensor<2xbf16>, tensor<2xbf16>) -> tensor<2xbf16> {
      ^bb0(%x: tensor<2xbf16>, %y: tensor<2xbf16>):
        %s = tg.add %x, %y : tensor<2xbf16>
        %d = tg.sub %s, %x : tensor<2xbf16>
        tg.yield %d : tensor<2xbf16>
      }
      return %r : tensor<2xbf16>
    })mlir";
  std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
  mlir::OwningOpRef<mlir::ModuleOp> m =
      mlir::parseSourceString<mlir::ModuleOp>(ir, &tg::compiler::sharedContext());
  ASSERT_TRUE(m);
  auto func = *m->getOps<mlir::func::FuncOp>().begin();
  // 256 + 1: the sum rounds to 256 in bf16 (8 bits), so (a + b) - a is 0 op by op, 1 in f32.
  std::vector<tg::ref::HostTensor> args = {
      tg::ref::HostTensor::fromFloats(tg::DType::BF16, {2}, std::vector<float>{256.0f, 3.0f}),
      tg::ref::HostTensor::fromFloats(tg::DType::BF16, {2}, std::vector<float>{1.0f, 0.5f})};
  std::vector<float> opByOp = tg::ref::interpret(func, args)[0].toFloats();
  tg::ref::InterpretOptions inF32;
  inF32.f32InsideFusions = true;
  std::vector<float> fused = tg::ref::interpret(func, args, inF32)[0].toFloats();
  EXPECT_EQ(opByOp, (std::vector<float>{0.0f, 0.5f}));
  EXPECT_EQ(fused, (std::vector<float>{1.0f, 0.5f}));
}

}  // namespace
