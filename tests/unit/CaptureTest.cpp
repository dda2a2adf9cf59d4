//===- CaptureTest.cpp - Captured tensors are never stale on replay (CPU) ===//
//
// Issue 13, bug 1: a jit function replays its graph without running the lambda, on the tensors
// the trace captured. Rebinding a captured variable (new weights after an optimizer step)
// must be seen: the replay reads the variable's new tensor (tracing again, and recompiling only
// for a new type, when it differs in type), and a by-value capture keeps the lambda's own copy,
// as C++ does. Every test compares with what calling the lambda itself gives, on fresh random
// values, and checks the report.
//
//===----------------------------------------------------------------------===//
#include <tg/tg.h>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace {

using tg::DType;
using tg::Device;
using tg::Tensor;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

void expectEqual(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.shape(), want.shape());
  std::vector<float> g = got.to_vector(), w = want.to_vector();
  for (size_t i = 0; i < g.size(); ++i) ASSERT_EQ(g[i], w[i]) << "element " << i;
}

Tensor cpuRandn(tg::Shape shape, uint64_t seed) {
  return tg::randn(std::move(shape), DType::F32, seed, Device::CPU);
}

// The reproducer: before the fix the last two calls returned 1.
TEST(Captures, ReboundVariableIsReadOnTheNextCall) {
  Tensor c = tg::ones({4}, DType::F32, Device::CPU);
  auto g = tg::jit([&c](const Tensor& x) { return x + c; });
  const Tensor x = cpuRandn({4}, 1);
  expectEqual(g(x), x + c);
  c = tg::full({4}, 5.0, DType::F32, Device::CPU);  // same type: replayed on the new tensor
  expectEqual(g(x), x + 5.0f);
  c = tg::full({1}, 7.0, DType::F32, Device::CPU);  // a new shape: traced and compiled again
  expectEqual(g(x), x + 7.0f);
  tg::JitReport r = g.report();
  EXPECT_EQ(r.captureRebinds, 1u);
  EXPECT_EQ(r.captureRetraces, 1u);
  ASSERT_EQ(r.recompiles.size(), 1u) << r.str();
  EXPECT_TRUE(contains(r.recompiles[0], "capture 0 (")) << r.recompiles[0];
  EXPECT_TRUE(contains(r.recompiles[0], "f32[4] cpu -> f32[1] cpu")) << r.recompiles[0];
  // Back to the first shape: that graph is found again, nothing compiles.
  c = cpuRandn({4}, 2);
  expectEqual(g(x), x + c);
  EXPECT_EQ(g.report().recompiles.size(), 1u);
  EXPECT_EQ(g.report().cacheMisses, 2u);
}

// A by-value capture is the lambda's own copy: rebinding the variable outside does not change
// it, in the lambda or in its replay. The report says which captures are copies.
TEST(Captures, ByValueCaptureIsTheLambdasCopy) {
  Tensor c = cpuRandn({3}, 3);
  const Tensor original = c;
  auto g = tg::jit([c](const Tensor& x) { return x * c; });
  const Tensor x = cpuRandn({3}, 4);
  expectEqual(g(x), x * original);
  c = cpuRandn({3}, 5);
  expectEqual(g(x), x * original);
  tg::JitReport r = g.report();
  ASSERT_EQ(r.graphs.size(), 1u);
  ASSERT_EQ(r.graphs[0].captures.size(), 1u);
  EXPECT_TRUE(r.graphs[0].captures[0].byValue);
  EXPECT_EQ(r.replays, 1u);
  EXPECT_EQ(r.captureRebinds, 0u);
}

// Weights in a struct captured by reference, replaced after every step (`w = w - lr * grad`):
// every call uses this step's weights, with one compilation and no tracing after the first.
TEST(Captures, OptimizerStepsOnAStructMemberReplay) {
  struct Model {
    Tensor w, b;
  } m{cpuRandn({2, 3}, 6), cpuRandn({3}, 7)};
  auto f = tg::jit([&m](const Tensor& x) { return tg::tanh(tg::matmul(x, m.w) + m.b); });
  const Tensor x = cpuRandn({4, 2}, 8);
  for (int step = 0; step < 5; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    expectEqual(f(x), tg::tanh(tg::matmul(x, m.w) + m.b));
    m.w = m.w - 0.5f * cpuRandn({2, 3}, 100 + step);
    if (step % 2) m.b = m.b * 0.5f;
  }
  tg::JitReport r = f.report();
  EXPECT_EQ(r.calls, 5u);
  EXPECT_EQ(r.replays, 4u);
  EXPECT_EQ(r.captureRebinds, 4u);
  EXPECT_EQ(r.cacheMisses, 1u);
  EXPECT_TRUE(r.recompiles.empty());
  ASSERT_EQ(r.graphs.at(0).captures.size(), 2u);
  EXPECT_FALSE(r.graphs[0].captures[0].byValue);
  EXPECT_TRUE(r.graphs[0].captures[0].loc.known());
}

// A copy the lambda makes of a captured variable still stands for that variable: rebinding the
// variable is seen, and calls keep replaying.
TEST(Captures, CopiesInsideTheLambdaStandForTheirVariable) {
  Tensor w = cpuRandn({5}, 9);
  auto f = tg::jit([&w](const Tensor& x) {
    Tensor local = w;  // a copy, made while tracing
    std::vector<Tensor> list{local, local};
    return x + list[1];
  });
  const Tensor x = cpuRandn({5}, 10);
  expectEqual(f(x), x + w);
  w = cpuRandn({5}, 11);
  expectEqual(f(x), x + w);
  EXPECT_EQ(f.report().replays, 1u);
  EXPECT_EQ(f.report().captureRebinds, 1u);
}

// Vector elements: assigning one is seen; growing the vector moves the elements (the watched
// objects are destroyed), so the lambda runs again and watches the new ones.
TEST(Captures, VectorElementsSurviveReallocation) {
  std::vector<Tensor> ws = {cpuRandn({6}, 12), cpuRandn({6}, 13)};
  auto f = tg::jit([&ws](const Tensor& x) { return x * ws[0] + ws[1]; });
  const Tensor x = cpuRandn({6}, 14);
  expectEqual(f(x), x * ws[0] + ws[1]);
  ws[1] = cpuRandn({6}, 15);
  expectEqual(f(x), x * ws[0] + ws[1]);
  ws.reserve(ws.capacity() * 4 + 8);  // every element moves
  expectEqual(f(x), x * ws[0] + ws[1]);
  ws[0] = cpuRandn({6}, 16);
  expectEqual(f(x), x * ws[0] + ws[1]);
  tg::JitReport r = f.report();
  EXPECT_EQ(r.captureRetraces, 1u);  // after the reallocation
  EXPECT_EQ(r.cacheMisses, 1u);      // the same graph every time
}

// Two variables holding the same tensor are two captures: rebinding one is seen.
TEST(Captures, AliasedVariablesAreWatchedSeparately) {
  Tensor a = cpuRandn({4}, 17);
  Tensor b = a;
  auto f = tg::jit([&](const Tensor& x) { return x * a - b; });
  const Tensor x = cpuRandn({4}, 18);
  expectEqual(f(x), x * a - b);
  b = cpuRandn({4}, 19);
  expectEqual(f(x), x * a - b);
  EXPECT_EQ(f.report().graphs.at(0).captures.size(), 2u);
}

// Through a pointer captured by value (a shared_ptr to the weights): the pointee is the
// variable.
TEST(Captures, PointeesOfCapturedPointersAreVariables) {
  auto weights = std::make_shared<Tensor>(cpuRandn({3}, 20));
  auto f = tg::jit([weights](const Tensor& x) { return x - *weights; });
  const Tensor x = cpuRandn({3}, 21);
  expectEqual(f(x), x - *weights);
  *weights = cpuRandn({3}, 22);
  expectEqual(f(x), x - *weights);
  EXPECT_FALSE(f.report().graphs.at(0).captures.at(0).byValue);  // the pointer is; the tensor is not
}

// A rebinding the lambda cannot use (another dtype, an undefined tensor) is the lambda's own
// error, raised at its line, not a stale result.
TEST(Captures, UnusableRebindingRaisesTheLambdasError) {
  Tensor c = cpuRandn({4}, 23);
  auto f = tg::jit([&c](const Tensor& x) { return x + c; });
  const Tensor x = cpuRandn({4}, 24);
  (void)f(x);
  c = tg::cast(c, DType::BF16);
  try {
    (void)f(x);
    ADD_FAILURE() << "expected a dtype error";
  } catch (const tg::Error& e) {
    EXPECT_TRUE(contains(e.what(), "different dtypes")) << e.what();
    EXPECT_TRUE(contains(e.what(), "CaptureTest.cpp")) << e.what();
  }
  c = Tensor();
  EXPECT_THROW((void)f(x), tg::Error);
  c = cpuRandn({4}, 25);
  expectEqual(f(x), x + c);  // and it recovers
}

// A tensor read through a temporary that dies during the trace (here the lambda empties the
// vector it read from) leaves no variable to watch: the function then runs its lambda on every
// call, which is always right, and the report says why.
TEST(Captures, ATemporarySourceRunsTheLambdaOnEveryCall) {
  std::vector<Tensor> pool = {cpuRandn({4}, 26)};
  int runs = 0;
  auto f = tg::jit([&](const Tensor& x) {
    ++runs;
    Tensor w = pool[0];
    pool.clear();       // the variable w was read from is gone
    pool.push_back(w);  // a new element: another variable
    return x + w;
  });
  const Tensor x = cpuRandn({4}, 27);
  expectEqual(f(x), x + pool[0]);
  pool[0] = cpuRandn({4}, 28);
  expectEqual(f(x), x + pool[0]);
  EXPECT_EQ(runs, 2);
  tg::JitReport r = f.report();
  EXPECT_EQ(r.replays, 0u);
  EXPECT_EQ(r.cacheMisses, 1u);
  EXPECT_TRUE(contains(r.str(), "read through a temporary Tensor")) << r.str();
}

// The report lists each capture with the line that read it.
TEST(Captures, ReportListsEachCaptureWithItsLine) {
  Tensor bias = cpuRandn({8}, 29);
  auto f = tg::jit([&bias](const Tensor& x) {
    return tg::relu(x + bias);  // the line the report names
  });
  const int line = __LINE__ - 2;
  (void)f(cpuRandn({8}, 30));
  const std::string text = f.report().str();
  EXPECT_TRUE(contains(text, "capture 0: f32[8] cpu, read at ")) << text;
  EXPECT_TRUE(contains(text, "CaptureTest.cpp:" + std::to_string(line))) << text;
  EXPECT_TRUE(contains(text, "through a variable")) << text;
}

// Functions with graph breaks run the lambda on every call anyway: captures are read fresh.
TEST(Captures, FunctionsWithBreaksReadCapturesFresh) {
  Tensor scale = tg::full({}, 2.0, DType::F32, Device::CPU);
  auto f = tg::jit([&scale](const Tensor& x) {
    const float s = tg::sum(x * scale).item();  // a graph break
    return x * scale + s;
  });
  const Tensor x = cpuRandn({3}, 31);
  for (double v : {2.0, -0.5, 3.0}) {
    scale = tg::full({}, v, DType::F32, Device::CPU);
    const float s = tg::sum(x * scale).item();
    expectEqual(f(x), x * scale + s);
  }
}

// Copies the lambda stores in a member survive the trace; in the next trace they are
// variables of their own (a link counts only in the trace that made it).
TEST(Captures, CopiesKeptAcrossTracesBecomeVariables) {
  Tensor w = cpuRandn({4}, 32);
  Tensor kept;
  auto f = tg::jit([&](const Tensor& x) {
    if (!kept.defined()) kept = w;  // host state: this branch is frozen into the first trace
    return x + kept;
  });
  const Tensor x = cpuRandn({4}, 33);
  expectEqual(f(x), x + w);
  w = cpuRandn({4}, 34);  // the trace read `kept` through w: seen, the lambda runs again
  expectEqual(f(x), x + kept);  // ... and reads `kept`, as calling the lambda would
  kept = cpuRandn({4}, 35);     // now `kept` is the variable
  expectEqual(f(x), x + kept);
}

}  // namespace
