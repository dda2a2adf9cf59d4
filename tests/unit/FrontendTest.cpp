//===- FrontendTest.cpp - Tracing, jit caching and user errors (CPU) ------===//
#include <tg/tg.h>

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace {

using tg::DType;

/// Expects `fn` to throw tg::Error whose message contains every fragment and whose location is
/// this file at `line`.
template <typename Fn>
void expectError(Fn fn, unsigned line, std::initializer_list<std::string> fragments) {
  try {
    fn();
    FAIL() << "expected a tg::Error";
  } catch (const tg::Error& e) {
    for (const std::string& f : fragments)
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos)
          << "'" << f << "' not in: " << e.what();
    EXPECT_EQ(e.location().line, line) << e.what();
    EXPECT_NE(e.location().file.find("FrontendTest.cpp"), std::string::npos) << e.what();
  }
}

TEST(Errors, ShapeMismatchNamesOpShapesAndLine) {
  tg::Tensor a = tg::randn({3}), b = tg::randn({4});
  unsigned line = __LINE__ + 1;
  expectError([&] { (void)tg::add(a, b); }, line, {"add", "[3]", "[4]", "broadcast"});
}

TEST(Errors, OperatorsReportTheExpressionLine) {
  tg::Tensor a = tg::randn({2, 3}), b = tg::randn({3, 2});
  unsigned line = __LINE__ + 1;
  expectError([&] { (void)(a * b); }, line, {"mul", "[2, 3]", "[3, 2]"});
  line = __LINE__ + 1;
  expectError([&] { (void)(1.0f - b * a); }, line, {"mul"});
}

TEST(Errors, DTypeMismatch) {
  tg::Tensor a = tg::randn({4}), b = tg::randn({4}, DType::BF16);
  unsigned line = __LINE__ + 1;
  expectError([&] { (void)(a + b); }, line, {"add", "f32", "bf16", "cast"});
  tg::Tensor i = tg::from_vector(std::vector<int32_t>{1, 2, 3, 4}, {4});
  line = __LINE__ + 1;
  expectError([&] { (void)tg::exp(i); }, line, {"exp", "floating-point", "i32"});
  line = __LINE__ + 1;
  expectError([&] { (void)(i * 1.5); }, line, {"mul", "1.5", "i32"});
}

TEST(Errors, BadAxes) {
  tg::Tensor x = tg::randn({2, 3});
  unsigned line = __LINE__ + 1;
  expectError([&] { (void)tg::sum(x, {2}); }, line, {"reduce_sum", "axis 2", "rank 2"});
  line = __LINE__ + 1;
  expectError([&] { (void)tg::mean(x, {1, -1}); }, line, {"reduce_mean", "repeated"});
  line = __LINE__ + 1;
  expectError([&] { (void)tg::softmax(x, -3); }, line, {"softmax", "axis -3"});
  line = __LINE__ + 1;
  expectError([&] { (void)tg::transpose(x, {0, 0}); }, line, {"transpose", "permutation"});
}

TEST(Errors, MatmulAndReshape) {
  tg::Tensor a = tg::randn({2, 3}), b = tg::randn({4, 5});
  unsigned line = __LINE__ + 1;
  expectError([&] { (void)tg::matmul(a, b); }, line, {"matmul", "K = 3 vs 4"});
  line = __LINE__ + 1;
  expectError([&] { (void)tg::reshape(a, {4, 2}); }, line, {"reshape", "6 elements", "[4, 2]"});
  line = __LINE__ + 1;
  expectError([&] { (void)tg::reshape(a, {-1, 4}); }, line, {"reshape", "-1"});
}

TEST(Errors, UndefinedTensorsAndBadCreation) {
  tg::Tensor undefined;
  unsigned line = __LINE__ + 1;
  expectError([&] { (void)tg::exp(undefined); }, line, {"exp", "undefined"});
  line = __LINE__ + 1;
  expectError([&] { (void)tg::from_vector({1.0f, 2.0f}, {3}); }, line, {"from_vector", "[3]"});
  line = __LINE__ + 1;
  expectError([&] { (void)tg::randn({2}, DType::I32); }, line, {"randn", "floating-point"});
}

TEST(Errors, CudaTensorsNeedAGpu) {
  if (tg::cuda_available()) GTEST_SKIP() << "a GPU is present";
  unsigned line = __LINE__ + 1;
  expectError([&] { (void)tg::zeros({4}, DType::F32, tg::Device::CUDA); }, line,
              {"CUDA", "no CUDA device"});
  tg::Tensor x = tg::ones({4});
  line = __LINE__ + 1;
  expectError([&] { (void)x.to(tg::Device::CUDA); }, line, {"CUDA"});
}

TEST(Jit, MatchesEagerAndReplaysWithoutTracing) {
  int traces = 0;
  auto fn = [&](const tg::Tensor& x, const tg::Tensor& y) {
    ++traces;
    tg::Tensor t = tg::tanh(x * 1.5f + y) * tg::sigmoid(y);
    return tg::exp(-(t * t)) * y + 1.0f;
  };
  auto f = tg::jit(fn);
  tg::Tensor x = tg::randn({1000}, DType::F32, 1), y = tg::randn({1000}, DType::F32, 2);
  std::vector<float> got = f(x, y).to_vector();
  EXPECT_EQ(traces, 1);
  std::vector<float> eager = fn(x, y).to_vector();
  ASSERT_EQ(got.size(), eager.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], eager[i]) << i;  // same kernels

  // Same signature: replay, the lambda does not run.
  tg::Tensor x2 = tg::randn({1000}, DType::F32, 3);
  std::vector<float> again = f(x2, y).to_vector();
  EXPECT_EQ(traces, 2);  // (the eager call above ran the lambda once)
  std::vector<float> expected = fn(x2, y).to_vector();
  EXPECT_EQ(traces, 3);
  for (size_t i = 0; i < again.size(); ++i) EXPECT_EQ(again[i], expected[i]) << i;
  (void)f(x2, y);
  EXPECT_EQ(traces, 3);

  // New shape: traced again.
  (void)f(tg::randn({10}), tg::randn({10}));
  EXPECT_EQ(traces, 4);
  // New dtype: traced again.
  (void)f(tg::randn({10}, DType::BF16), tg::randn({10}, DType::BF16));
  EXPECT_EQ(traces, 5);
}

TEST(Jit, IrShowsTheTracedGraph) {
  auto f = tg::jit([](const tg::Tensor& x) { return tg::relu(x) + 2.0f; }, {.name = "my_fn"});
  EXPECT_EQ(f.ir(), "");
  (void)f(tg::randn({4, 8}));
  std::string ir = f.ir();
  EXPECT_NE(ir.find("func.func @my_fn(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32>"),
            std::string::npos) << ir;
  EXPECT_NE(ir.find("tg.relu"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tg.constant dense<2.000000e+00> : tensor<4x8xf32>"), std::string::npos)
      << ir;
  EXPECT_NE(ir.find("tg.add"), std::string::npos) << ir;
}

TEST(Jit, BroadcastsBecomeExplicitOps) {
  auto f = tg::jit([](const tg::Tensor& x, const tg::Tensor& b) { return x + b; });
  tg::Tensor x = tg::randn({3, 4}), b = tg::randn({4});
  std::vector<float> got = f(x, b).to_vector(), xs = x.to_vector(), bs = b.to_vector();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(got[i * 4 + j], xs[i * 4 + j] + bs[j]);
  EXPECT_NE(f.ir().find("tg.broadcast %arg1 dims = [1] : tensor<4xf32> to tensor<3x4xf32>"),
            std::string::npos) << f.ir();
}

TEST(Jit, CapturedTensorsAreImplicitInputs) {
  tg::Tensor w = tg::randn({8, 4}, DType::F32, 9);
  auto f = tg::jit([&](const tg::Tensor& x) { return tg::matmul(x, w); });
  tg::Tensor x = tg::randn({2, 8}, DType::F32, 10);
  std::vector<float> got = f(x).to_vector(), expected = tg::matmul(x, w).to_vector();
  for (size_t i = 0; i < got.size(); ++i) EXPECT_FLOAT_EQ(got[i], expected[i]);
  // The capture is an argument of the compiled function, not a constant.
  EXPECT_NE(f.ir().find("%arg1: tensor<8x4xf32>"), std::string::npos) << f.ir();
  EXPECT_EQ(f.ir().find("dense<"), std::string::npos) << f.ir();
}

TEST(Jit, ReturnsTuplesAndInputsUnchanged) {
  auto f = tg::jit([](const tg::Tensor& x) {
    return std::make_tuple(x, tg::sum(x, {1}), tg::max(x, {0}, /*keepdims=*/true));
  });
  tg::Tensor x = tg::randn({3, 5});
  auto [same, rowSums, colMax] = f(x);
  EXPECT_EQ(same.to_vector(), x.to_vector());
  EXPECT_EQ(rowSums.shape(), (tg::Shape{3}));
  EXPECT_EQ(colMax.shape(), (tg::Shape{1, 5}));
  std::vector<float> xs = x.to_vector(), sums = rowSums.to_vector();
  for (int i = 0; i < 3; ++i) {
    double s = 0;
    for (int j = 0; j < 5; ++j) s += xs[i * 5 + j];
    EXPECT_NEAR(sums[i], s, 1e-5);
  }
}

TEST(Jit, ShapeErrorsInsideTheLambdaPointAtTheLambdaLine) {
  auto f = tg::jit([](const tg::Tensor& x) {
    return tg::matmul(x, x);  // [2, 3] @ [2, 3]: K mismatch
  });
  unsigned line = __LINE__ - 2;
  expectError([&] { (void)f(tg::randn({2, 3})); }, line, {"matmul", "K = 3 vs 2"});
  // The failed trace left nothing behind: a valid call still works.
  std::vector<float> ok = f(tg::randn({3, 3})).to_vector();
  EXPECT_EQ(ok.size(), 9u);
}

// Issue 13, bug 5: an error raised inside a traced lambda names the jit function, not the
// compiler's spelling of the lambda's operator() (a long template name in generic code).
TEST(Jit, ErrorsInsideTheLambdaNameTheJitFunction) {
  auto f = tg::jit([](const tg::Tensor& x) { return x + tg::randn({3}); }, {.name = "blend"});
  try {
    (void)f(tg::randn({4}));
    FAIL() << "expected a tg::Error";
  } catch (const tg::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("(in jit 'blend')"), std::string::npos) << what;
    EXPECT_EQ(what.find("<lambda"), std::string::npos) << what;
    EXPECT_EQ(what.find("operator()"), std::string::npos) << what;
    EXPECT_NE(what.find("FrontendTest.cpp:"), std::string::npos) << what;
  }
}

TEST(Errors, FunctionNamesAreReadable) {
  auto readable = [](const char* function) {
    return tg::SourceLoc("f.cpp", 1, function).readableFunction();
  };
  // GCC's spelling of a lambda in a function template, and Clang's.
  EXPECT_EQ(readable("tgtest::{anonymous}::fixedArity<1, 2, std::integer_sequence<long unsigned "
                     "int, 0> >(ProgramFn, std::index_sequence<0>)::<lambda(TensorRef<I>...)>"),
            "a lambda in tgtest::{anonymous}::fixedArity<...>(ProgramFn, std::index_sequence<...>)");
  EXPECT_EQ(readable("auto main()::(anonymous class)::operator()(const tg::Tensor &) const"),
            "a lambda in main()");
  EXPECT_EQ(readable("auto main()::(lambda)::operator()(const tg::Tensor &) const"),  // clang-22
            "a lambda in main()");
  EXPECT_EQ(readable("virtual void Suite_Test::TestBody()"), "virtual void Suite_Test::TestBody()");
  EXPECT_EQ(readable("bool operator<(const A&, const B&)"), "bool operator<(const A&, const B&)");
  EXPECT_EQ(readable("std::ostream& operator<<(std::ostream&, const X<int>&)"),
            "std::ostream& operator<<(std::ostream&, const X<...>&)");
  EXPECT_LE(readable(std::string(500, 'x').c_str()).size(), 120u);
  // What an Error prints uses it.
  tg::Error e("boom", tg::SourceLoc("f.cpp", 3, "void g<std::vector<int> >()"));
  EXPECT_EQ(std::string(e.what()), "f.cpp:3: error: boom (in void g<...>())");
}

TEST(Jit, EscapedTracedTensorsAreRejected) {
  tg::Tensor leaked;
  auto f = tg::jit([&](const tg::Tensor& x) {
    leaked = x * 2.0f;
    return leaked;
  });
  (void)f(tg::randn({4}));
  unsigned line = __LINE__ + 1;
  expectError([&] { (void)tg::exp(leaked); }, line, {"exp", "outside its trace"});
}

TEST(Jit, NestedJitFunctionsInline) {
  auto inner = tg::jit([](const tg::Tensor& x) { return x * 3.0f; });
  auto outer = tg::jit([&](const tg::Tensor& x) { return inner(x) + 1.0f; });
  tg::Tensor x = tg::randn({5});
  std::vector<float> got = outer(x).to_vector(), xs = x.to_vector();
  for (size_t i = 0; i < got.size(); ++i) EXPECT_FLOAT_EQ(got[i], xs[i] * 3.0f + 1.0f);
  EXPECT_NE(outer.ir().find("tg.mul"), std::string::npos);
}

TEST(Creation, RandomIsSeededAndNotDegenerate) {
  std::vector<float> a = tg::randn({10000}, DType::F32, 42).to_vector();
  std::vector<float> b = tg::randn({10000}, DType::F32, 42).to_vector();
  std::vector<float> c = tg::randn({10000}, DType::F32, 43).to_vector();
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  double mean = 0, var = 0;
  for (float v : a) mean += v;
  mean /= a.size();
  for (float v : a) var += (v - mean) * (v - mean);
  var /= a.size();
  EXPECT_NEAR(mean, 0.0, 0.05);
  EXPECT_NEAR(var, 1.0, 0.05);
  std::vector<float> u = tg::rand({10000}, DType::BF16, 1).to_vector();
  for (float v : u) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LT(v, 1.0f);
  }
}

TEST(Creation, FromVectorConvertsAndReadsBack) {
  tg::Tensor h = tg::from_vector({1.0f, 1.0f + 0x1.0p-8f, -2.5f}, {3}, DType::BF16);
  EXPECT_EQ(h.dtype(), DType::BF16);
  EXPECT_EQ(h.to_vector(), (std::vector<float>{1.0f, 1.0f, -2.5f}));  // ties to even
  tg::Tensor i = tg::from_vector(std::vector<int32_t>{-3, 7}, {2});
  EXPECT_EQ(i.to_vector<int32_t>(), (std::vector<int32_t>{-3, 7}));
  EXPECT_EQ(tg::cast(i, DType::Bool).to_vector<bool>(), (std::vector<bool>{true, true}));
  EXPECT_EQ(tg::full({}, 2.5).item(), 2.5f);
  EXPECT_TRUE(static_cast<bool>(tg::full({1}, 1.0)));
  EXPECT_FALSE(static_cast<bool>(tg::zeros({1})));
}

}  // namespace
