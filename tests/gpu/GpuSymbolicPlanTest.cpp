//===- GpuSymbolicPlanTest.cpp - A plan compiled for a range of sizes, run at many ===//
//
//  GpuSymbolicPlan.*  rt::Executor on a hand-made symbolic plan (Plan::symbols; PlanSizes.h;
//                     tests/common/SymbolicPlans.h): kernels that read their sizes from their
//                     parameters, temporaries in the arena, a result sized per call. At every size, direct and as a CUDA
//                     graph, the result is checked against the host; a stale grid, size
//                     argument, arena or result size fails it. Bad symbol values are
//                     tg::Errors that leave the executor usable.
//
// Every test skips without a GPU.
//===----------------------------------------------------------------------===//
#include "SymbolicPlans.h"
#include "tg/Runtime/Executor.h"
#include "tg/Runtime/Gpu.h"
#include "tg/Support/Error.h"
#include "tg/tg.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace tg::rt;

constexpr int kLaunches = 3;

/// Runs `executor` at (batch, seq) on fresh values and checks the result against the host.
void runAndCheck(Executor& executor, Gpu& gpu, int64_t batch, int64_t seq, bool graph, uint32_t seed) {
  SCOPED_TRACE("batch " + std::to_string(batch) + ", seq " + std::to_string(seq) + (graph ? ", graph" : ""));
  const int64_t n = batch * seq;
  std::vector<float> x(static_cast<size_t>(n));
  uint32_t s = seed * 2654435761u + 12345u;
  for (float& v : x) {
    s = s * 1664525u + 1013904223u;
    v = static_cast<float>(static_cast<int32_t>(s >> 9) % 2000 - 999) / 128.0f + 0.5f;  // never 0 everywhere
  }
  std::shared_ptr<DeviceBuffer> in = gpu.allocate(x.size() * 4);
  gpu.copyToDevice(in->ptr(), x.data(), x.size() * 4);
  std::vector<std::shared_ptr<DeviceBuffer>> results;
  const std::vector<int64_t> values = {batch, seq};
  executor.run({in}, results, graph, values);
  ASSERT_EQ(results.size(), 1u);
  ASSERT_EQ(executor.sizes().outputShapes.size(), 1u);
  EXPECT_EQ(executor.sizes().outputShapes[0], (tg::Shape{batch, seq}));
  ASSERT_GE(results[0]->bytes(), x.size() * 4);
  std::vector<float> y(x.size(), -12345.0f);
  gpu.copyToHost(y.data(), results[0]->ptr(), y.size() * 4);
  gpu.synchronize();
  const std::vector<float> want = tgtest::symbolicChainReference(x, kLaunches, seq);
  int wrong = 0;
  for (int64_t i = 0; i < n; ++i)
    if (y[i] != want[i] && ++wrong <= 5) ADD_FAILURE() << "y[" << i << "] = " << y[i] << ", want " << want[i];
  EXPECT_EQ(wrong, 0);
}

TEST(GpuSymbolicPlan, EverySizeIsRightDirectAndAsACudaGraph) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  Gpu& gpu = *Gpu::get();
  Executor executor(tgtest::symbolicChainPlan(kLaunches), gpu);
  // Sizes up and down (the arena grows, then is kept), primes, 1, and repeats (no new sizes).
  const std::vector<std::pair<int64_t, int64_t>> sizes = {
      {1, 1}, {3, 7}, {2, 4099}, {64, 5000}, {3, 7}, {1, 1}, {17, 257}, {17, 257}, {64, 5000}, {5, 1}};
  uint32_t seed = 1;
  for (bool graph : {false, true})
    for (auto [batch, seq] : sizes) runAndCheck(executor, gpu, batch, seq, graph, seed++);
  EXPECT_TRUE(executor.usesCudaGraph());
  EXPECT_GT(executor.cudaGraphLaunches(), 0u);
  EXPECT_GT(executor.cudaGraphParameterUpdates(), 0u) << "new sizes update the graph's nodes in place";
  // Every run whose sizes differ from the one before evaluates them again; repeats do not.
  EXPECT_EQ(executor.sizeChanges(), 2u * sizes.size() - 2u);
  EXPECT_EQ(executor.peakDeviceBytes(), executor.sizes().arenaBytes + 5 * 1 * 4);
}

TEST(GpuSymbolicPlan, BadSymbolValuesAreErrorsAndTheExecutorStaysUsable) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  Gpu& gpu = *Gpu::get();
  Executor executor(tgtest::symbolicChainPlan(kLaunches), gpu);
  runAndCheck(executor, gpu, 4, 100, true, 7);
  std::shared_ptr<DeviceBuffer> in = gpu.allocate(4 * 100 * 4);
  std::vector<std::shared_ptr<DeviceBuffer>> results;
  for (const std::vector<int64_t>& bad : {std::vector<int64_t>{4}, std::vector<int64_t>{65, 100},
                                          std::vector<int64_t>{4, 0}, std::vector<int64_t>{}}) {
    try {
      executor.run({in}, results, true, bad);
      ADD_FAILURE() << "expected a tg::Error for " << bad.size() << " value(s)";
    } catch (const tg::Error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("symbolic_chain"), std::string::npos) << m;
    }
  }
  EXPECT_EQ(executor.sizes().values, (std::vector<int64_t>{4, 100})) << "a refused run changes nothing";
  runAndCheck(executor, gpu, 4, 100, true, 8);
  runAndCheck(executor, gpu, 9, 31, true, 9);
}

}  // namespace
