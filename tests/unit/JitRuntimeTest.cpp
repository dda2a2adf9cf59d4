//===- JitRuntimeTest.cpp - Options, report fields and launch parameters (CPU) ===//
//
// What of the runtime work can be checked without a GPU: JitOptions::cuda_graphs, how the
// report prints CUDA graph use and peak device memory, the per-call path's forms of jit calls
// (no arguments, pairs), and the layout of the launches' parameter blocks. The GPU side (graphs
// replayed, out of memory, memory flat over 100,000 calls) is tests/gpu/GpuGraphsTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "tg/Runtime/LaunchParams.h"

#include <tg/tg.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace {

using tg::DType;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(JitRuntime, CudaGraphsAreOnByDefault) {
  EXPECT_TRUE(tg::JitOptions{}.cuda_graphs);
  tg::JitOptions off{.fuse = false, .cuda_graphs = false};
  EXPECT_FALSE(off.cuda_graphs);
  EXPECT_FALSE(off.fuse);
}

TEST(JitRuntime, ReportPrintsLaunchesAndPeakMemory) {
  tg::JitReport r;
  r.name = "f";
  tg::JitReport::Graph graphed;
  graphed.index = 0;
  graphed.ops = 8;
  graphed.kernels = 1;
  graphed.runs = 6;
  graphed.cudaGraph = true;
  graphed.cudaGraphLaunches = 5;
  graphed.cudaGraphParameterUpdates = 3;
  graphed.peakDeviceBytes = 16384;
  graphed.kernels = 179;
  graphed.distinctKernels = 25;
  graphed.kernelsCompiled = 20;
  graphed.kernelsFromDisk = 4;
  graphed.kernelsInMemory = 1;
  graphed.nvrtcMs = 2912.25;
  tg::JitReport::Graph direct = graphed;
  direct.index = 1;
  direct.cudaGraph = false;
  direct.cudaGraphLaunches = 0;
  direct.noCudaGraphReason = "JitOptions::cuda_graphs is false";
  direct.peakDeviceBytes = 3 * (size_t(1) << 20) / 2;
  tg::JitReport::Graph cpu;
  cpu.index = 2;
  cpu.ops = 3;
  r.graphs = {graphed, direct, cpu};
  const std::string text = r.str();
  EXPECT_TRUE(contains(text, "launched as one CUDA graph (5 time(s), 3 kernel parameter update(s))")) << text;
  EXPECT_TRUE(contains(text, "peak device memory per run: 16.0 KiB (16384 bytes)")) << text;
  EXPECT_TRUE(contains(text, "kernels: 25 distinct for 179 launch(es); 20 compiled by NVRTC (2912.2 ms summed "
                             "over the threads), 4 read from the disk cache, 1 already loaded"))
      << text;
  EXPECT_TRUE(contains(text, "launched kernel by kernel: JitOptions::cuda_graphs is false"))
      << text;
  EXPECT_TRUE(contains(text, "1.5 MiB (1572864 bytes)")) << text;
  // The CPU graph has no launches and no device memory to speak of.
  const std::string cpuLine = text.substr(text.find("graph 2:"));
  EXPECT_TRUE(contains(cpuLine, "CPU reference interpreter")) << text;
  EXPECT_FALSE(contains(cpuLine, "launched")) << text;
  EXPECT_FALSE(contains(cpuLine, "peak device memory")) << text;
  EXPECT_FALSE(contains(cpuLine, "distinct for")) << text;
}

TEST(JitRuntime, ReportPrintsTheProfileSlowestFirstAndSumsTheRest) {
  tg::JitReport r;
  r.name = "f";
  tg::JitReport::Graph g;
  g.kernels = 20;
  g.profiledRuns = 4;
  for (int i = 0; i < 18; ++i)  // 18 kernels, slowest first: 18, 17, ... 1 us
    g.profile.push_back({.kernel = "tg_e" + std::to_string(i), .what = i == 0 ? "gemv: x" : "",
                         .launches = i == 0 ? 3u : 1u, .usPerRun = 18.0 - i});
  r.graphs = {g};
  const std::string text = r.str();
  EXPECT_TRUE(contains(text, "profile (device events around each launch, over 4 run(s) after the first): "
                             "171.0 us per run")) << text;
  EXPECT_TRUE(contains(text, "     18.0 us  10.5%    3 x tg_e0: gemv: x\n")) << text;
  EXPECT_TRUE(contains(text, "      3.0 us   1.8%    1 x tg_e15\n")) << text;
  EXPECT_FALSE(contains(text, "x tg_e16")) << text;
  EXPECT_TRUE(contains(text, "... 2 more kernel(s): 3.0 us")) << text;
}

TEST(JitRuntime, CpuFunctionsReportNoDeviceMemory) {
  auto f = tg::jit([](const tg::Tensor& x) { return tg::exp(x) + 1.0f; });
  tg::Tensor x = tg::randn({16}, DType::F32, 1, tg::Device::CPU);
  for (int i = 0; i < 3; ++i) (void)f(x);
  tg::JitReport r = f.report();
  ASSERT_EQ(r.graphs.size(), 1u);
  EXPECT_EQ(r.graphs[0].kernels, 0u);
  EXPECT_FALSE(r.graphs[0].cudaGraph);
  EXPECT_EQ(r.graphs[0].peakDeviceBytes, 0u);
  EXPECT_EQ(r.replays, 2u);
}

TEST(JitRuntime, FunctionsOfNoArgumentsReadTheirCapturesOnEveryCall) {
  tg::Tensor w = tg::from_vector({1.0f, 2.0f, 3.0f}, {3}, DType::F32, tg::Device::CPU);
  int traces = 0;
  auto f = tg::jit([&]() {
    ++traces;
    return w * 2.0f;
  });
  EXPECT_EQ(f().to_vector(), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(f().to_vector(), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(traces, 1);
  EXPECT_EQ(f.report().replays, 1u);
}

TEST(JitRuntime, PairsComeBackInOrder) {
  auto f = tg::jit([](const tg::Tensor& x, const tg::Tensor& y) {
    return std::make_pair(x + y, x - y);
  });
  tg::Tensor x = tg::full({2}, 3.0, DType::F32, tg::Device::CPU);
  tg::Tensor y = tg::full({2}, 1.0, DType::F32, tg::Device::CPU);
  for (int i = 0; i < 2; ++i) {  // traced, then replayed
    auto [sum, difference] = f(x, y);
    EXPECT_EQ(sum.to_vector(), (std::vector<float>{4, 4}));
    EXPECT_EQ(difference.to_vector(), (std::vector<float>{2, 2}));
  }
}

TEST(LaunchParams, BlocksAreAlignedContiguousPerLaunchAndZeroed) {
  using tg::rt::LaunchParams;
  LaunchParams p({{24}, {16, 256}, {0}});
  ASSERT_EQ(p.launches(), 3u);
  EXPECT_EQ(p.count(0), 1u);
  EXPECT_EQ(p.count(1), 2u);
  EXPECT_EQ(p.count(2), 1u);
  for (size_t l = 0; l < p.launches(); ++l)
    for (size_t b = 0; b < p.count(l); ++b) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p.block(l, b)) % LaunchParams::kAlignment, 0u);
      EXPECT_EQ(p.pointers(l)[b], static_cast<void*>(p.block(l, b))) << l << "/" << b;
    }
  EXPECT_EQ(p.blockBytes(1, 1), 256u);
  // A launch's bytes run from its first block to the end of its last, padding included.
  EXPECT_EQ(p.bytes(0).size(), 24u);
  EXPECT_EQ(p.bytes(1).data(), p.block(1, 0));
  EXPECT_EQ(p.bytes(1).size(), size_t(64 + 256));
  EXPECT_EQ(p.bytes(2).size(), 0u);
  for (std::byte b : p.bytes(1)) EXPECT_EQ(b, std::byte{0});
  // Writing a block shows in its launch's bytes only.
  p.block(1, 1)[5] = std::byte{7};
  EXPECT_EQ(p.bytes(1)[64 + 5], std::byte{7});
  for (std::byte b : p.bytes(0)) EXPECT_EQ(b, std::byte{0});
}

}  // namespace
