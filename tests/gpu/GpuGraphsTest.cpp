//===- GpuGraphsTest.cpp - CUDA graphs, device memory and out-of-memory on the GPU ===//
//
// Every test skips without a GPU.
//  GpuGraphs.*  a break-free jit function replays as one CUDA graph from its second call: right
//               under calls with new buffers every time (all results read at the end, each
//               against the CPU), bit-identical to {.cuda_graphs = false}, also unfused (many
//               kernels sharing the arena), a tensor-core matmul whose TMA maps are
//               re-encoded for new buffers, with captured tensors and with tg::check; the
//               report says which launches a graph uses; a loop over its own result
//               alternates two buffers that graph instances hold (no parameter updates).
//  GpuMemory.*  device out-of-memory is a tg::OutOfMemoryError naming the function, the bytes
//               and the call's line, and the process goes on; released buffers come back
//               last-first and live ones never overlap; 100,000 calls leave host and device
//               memory flat.
//
//===----------------------------------------------------------------------===//
#include "GpuCompare.h"

#include "tg/Runtime/Gpu.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>
#include <vector>

// Counts the binary's C++ heap allocations (the driver allocates with malloc, not counted), so a
// test can check what one replayed call allocates.
namespace {
std::atomic<uint64_t> gAllocations{0};
void* countedAllocation(std::size_t bytes) {
  gAllocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(bytes ? bytes : 1)) return p;
  throw std::bad_alloc();
}
}  // namespace
void* operator new(std::size_t bytes) { return countedAllocation(bytes); }
void* operator new[](std::size_t bytes) { return countedAllocation(bytes); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

using namespace tggpu;

/// 32 elementwise ops, as examples/graphs.h's chain32: 32 kernels when not fused.
Tensor chain32(Tensor x) {
  for (int i = 0; i < 8; ++i) x = tg::tanh(x * 0.9f + 0.1f) - 0.05f;
  return x;
}

/// f32 tanh chains on the GPU against the CPU reference: a few ulp per op, contracted by tanh.
Tolerance chainTolerance() {
  Tolerance t;
  t.rel = 1e-5;
  t.abs = 1e-5;
  t.rule = "f32 tanh chain: rel 1e-5 or abs 1e-5";
  return t;
}

const tg::JitReport::Graph& onlyGraph(const tg::JitReport& r) {
  EXPECT_EQ(r.graphs.size(), 1u) << r;
  return r.graphs.at(0);
}

//===----------------------------------------------------------------------===//
// CUDA graphs
//===----------------------------------------------------------------------===//

TEST(GpuGraphs, NewBuffersEveryCallAreRightAtTheEnd) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  auto f = tg::jit([](const Tensor& x, const Tensor& y) { return readmeChain(x, y); });
  const int64_t n = 4099;  // odd: vector body and scalar tail
  const int calls = 24;
  std::vector<Tensor> xs, ys, dxs, dys, got;
  for (int c = 0; c < calls; ++c) {
    // Every call gets fresh device buffers (earlier ones stay alive, so the addresses differ),
    // except every fourth call, which repeats the previous call's buffers: only the result's
    // address changes. That call's result then feeds one more call.
    if (c % 4 == 3) {
      xs.push_back(xs.back());
      ys.push_back(ys.back());
      dxs.push_back(dxs.back());
      dys.push_back(dys.back());
    } else {
      xs.push_back(tg::randn({n}, DType::F32, 1000 + c, Device::CPU));
      ys.push_back(tg::randn({n}, DType::F32, 2000 + c, Device::CPU));
      dxs.push_back(xs.back().to(Device::CUDA));
      dys.push_back(ys.back().to(Device::CUDA));
    }
    got.push_back(f(dxs.back(), dys.back()));
    if (c % 4 == 3) {
      Tensor previous = got.back();
      got.push_back(f(previous, previous));
    }
  }
  // Only now read anything back: no call may have overwritten an earlier call's result.
  size_t k = 0;
  for (int c = 0; c < calls; ++c, ++k) {
    SCOPED_TRACE("call " + std::to_string(c));
    const std::vector<float> yv = ys[c].to_vector<float>();
    Tensor want = readmeChain(xs[c], ys[c]);
    compare(got[k], want, [&](int64_t i, double z) { return chainBound(DType::F32, yv[i], z); },
            1e-5, "the chain's per-op error bound (chainBound)");
    if (c % 4 == 3) {
      ++k;
      Tensor g = got[k - 1].to(Device::CPU);
      const std::vector<float> gv = g.to_vector<float>();
      compare(got[k], readmeChain(g, g),
              [&](int64_t i, double z) { return chainBound(DType::F32, gv[i], z); }, 1e-5,
              "the chain's per-op error bound (chainBound)");
    }
  }
  const tg::JitReport r = f.report();
  const tg::JitReport::Graph& g = onlyGraph(r);
  EXPECT_TRUE(g.cudaGraph) << r;
  EXPECT_EQ(g.cudaGraphLaunches, r.calls - 1) << "every call after the first is one graph launch\n"
                                              << r;
}

TEST(GpuGraphs, ALoopOverItsOwnResultReusesTwoBuffersWithoutParameterUpdates) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  if (!cachingAllocator()) GTEST_SKIP() << "tests the caching allocator (off: TG_NO_MEMORY_CACHING)";
  // z = f(z, y), the previous result dropped at each call: the result buffers alternate (the
  // input is alive while the new result is allocated), so two graph instances hold the two
  // buffer sets and steady-state calls update no parameters. The values must still be right:
  // a reused buffer is written only after the previous call read it (one stream).
  auto f = tg::jit([](const Tensor& z, const Tensor& y) { return z * 0.5f + tg::tanh(y); });
  const int64_t n = 4099;
  Tensor y = tg::randn({n}, DType::F32, 11, Device::CPU);
  Tensor want = tg::randn({n}, DType::F32, 12, Device::CPU);
  Tensor dy = y.to(Device::CUDA), dz = want.to(Device::CUDA);
  const int warm = 10, calls = 300;
  for (int c = 0; c < warm; ++c) dz = f(dz, dy);
  const uint64_t updatesWarm = onlyGraph(f.report()).cudaGraphParameterUpdates;
  for (int c = warm; c < calls; ++c) dz = f(dz, dy);
  for (int c = 0; c < calls; ++c) want = want * 0.5f + tg::tanh(y);  // CPU, eagerly
  Tolerance t;
  t.rel = 1e-5;
  t.abs = 1e-5;
  t.rule = "f32 z * 0.5 + tanh(y): rel 1e-5 or abs 1e-5";
  compare(dz, want, t);
  const tg::JitReport r = f.report();
  EXPECT_EQ(onlyGraph(r).cudaGraphLaunches, uint64_t(calls - 1)) << r;
  EXPECT_EQ(onlyGraph(r).cudaGraphParameterUpdates, updatesWarm)
      << "steady-state calls alternate between two buffer sets the graph instances hold\n" << r;
}

TEST(GpuGraphs, SameBitsWithAndWithoutCudaGraphs) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  for (bool fuse : {true, false}) {
    SCOPED_TRACE(fuse ? "fused" : "unfused");
    auto fn = [](const Tensor& x, const Tensor& y) { return chain32(x) * readmeChain(x, y); };
    auto on = tg::jit(fn, {.fuse = fuse});
    auto off = tg::jit(fn, {.fuse = fuse, .cuda_graphs = false});
    std::vector<Tensor> a, b;
    for (int c = 0; c < 6; ++c) {
      Tensor x = tg::randn({3, 1000}, DType::F32, 40 + c), y = tg::randn({3, 1000}, DType::F32, 50 + c);
      a.push_back(on(x, y));
      b.push_back(off(x, y));
    }
    for (size_t c = 0; c < a.size(); ++c) {
      std::string why;
      EXPECT_TRUE(sameBits(a[c], b[c], why)) << "call " << c << ": " << why;
    }
    EXPECT_TRUE(onlyGraph(on.report()).cudaGraph) << on.report();
    const tg::JitReport offReport = off.report();  // onlyGraph returns a reference into it
    const tg::JitReport::Graph& offGraph = onlyGraph(offReport);
    EXPECT_FALSE(offGraph.cudaGraph);
    EXPECT_EQ(offGraph.cudaGraphLaunches, 0u);
    EXPECT_NE(offGraph.noCudaGraphReason.find("cuda_graphs"), std::string::npos) << off.report();
  }
}

// A tensor-core matmul with a fused epilogue inside the graph: its TMA tensor maps travel in
// the kernel parameters, so new input buffers must re-encode them and update the node. Every
// call's result must equal the same function launched kernel by kernel.
TEST(GpuGraphs, TensorCoreMatmulReplaysWithNewBuffers) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  auto fn = [](const Tensor& x, const Tensor& w, const Tensor& b) {
    return tg::gelu(tg::matmul(x, tg::transpose(w, 0, 1)) + b, tg::Gelu::Tanh);
  };
  auto on = tg::jit(fn);
  auto off = tg::jit(fn, {.cuda_graphs = false});
  const Tensor w = tg::randn({192, 256}, DType::BF16, 7), b = tg::randn({192}, DType::BF16, 8);
  std::vector<Tensor> got, want;
  for (int c = 0; c < 5; ++c) {
    Tensor x = tg::randn({320, 256}, DType::BF16, 60 + c);  // a new buffer every call
    got.push_back(on(x, w, b));
    want.push_back(off(x, w, b));
  }
  for (size_t c = 0; c < got.size(); ++c) {
    std::string why;
    EXPECT_TRUE(sameBits(got[c], want[c], why)) << "call " << c << ": " << why;
  }
  std::string differ;
  EXPECT_FALSE(sameBits(got[0], got[1], differ)) << "new inputs, same result?";
  const tg::JitReport report = on.report();
  const tg::JitReport::Graph& g = onlyGraph(report);
  EXPECT_TRUE(g.cudaGraph) << report;
  EXPECT_EQ(g.kernels, 1u) << report;
}

TEST(GpuGraphs, UnfusedChainIsOneGraphOfManyKernels) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  auto f = tg::jit([](const Tensor& x) { return chain32(x); }, {.fuse = false});
  std::vector<Tensor> inputs, got;
  for (int c = 0; c < 10; ++c) {
    inputs.push_back(tg::randn({2, 777}, DType::F32, 300 + c, Device::CPU));
    got.push_back(f(inputs.back().to(Device::CUDA)));
  }
  for (size_t c = 0; c < got.size(); ++c) {
    SCOPED_TRACE("call " + std::to_string(c));
    compare(got[c], chain32(inputs[c]), chainTolerance());
  }
  const tg::JitReport r = f.report();
  const tg::JitReport::Graph& g = onlyGraph(r);
  EXPECT_EQ(g.kernels, 32u) << r;
  EXPECT_TRUE(g.cudaGraph) << r;
  EXPECT_EQ(g.cudaGraphLaunches, 9u) << r;
  // The arena of temporaries and the result: arena > 0 with 31 intermediates.
  EXPECT_GT(g.peakDeviceBytes, size_t(2 * 777 * 4)) << r;
}

// Issue 13, bug 1: weights replaced after every step (`w = w - lr * g`, each a new buffer) are
// read by the next replay of the CUDA graph; a new shape traces and compiles again. All
// results are read at the end, each against the CPU with that step's weights.
TEST(GpuGraphs, ReboundCapturesAreReadByTheNextReplay) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  struct Layer {
    Tensor w, b;
  } layer{tg::randn({64, 32}, DType::F32, 91), tg::randn({32}, DType::F32, 92)};
  auto f = tg::jit([&layer](const Tensor& x) { return tg::tanh(tg::matmul(x, layer.w)) + layer.b; },
                   {.precision = tg::Precision::Accurate});
  const Tensor x = tg::randn({16, 64}, DType::F32, 93);
  std::vector<Tensor> got, wants, scales;
  for (int step = 0; step < 6; ++step) {
    got.push_back(f(x));
    const Tensor xc = x.to(Device::CPU), wc = layer.w.to(Device::CPU);
    wants.push_back(tg::tanh(tg::matmul(xc, wc)) + layer.b.to(Device::CPU));
    scales.push_back(tg::matmul(tg::abs(xc), tg::abs(wc)));  // tanh does not magnify errors
    layer.w = layer.w - 0.25f * tg::randn({64, 32}, DType::F32, 100 + step);
    if (step == 3) layer.b = tg::randn({1}, DType::F32, 94);  // a new shape: broadcast
  }
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("step " + std::to_string(i));
    compare(got[i], wants[i],
            Tolerance{.f32Ulps = 4, .scaled = 64 * 0x1p-23, .rule = "f32 matmul (K = 64) + tanh"},
            absValues(scales[i]));
  }
  tg::JitReport r = f.report();
  EXPECT_EQ(r.captureRetraces, 1u) << r;
  EXPECT_EQ(r.captureRebinds, 4u) << r;
  EXPECT_EQ(r.cacheMisses, 2u) << r;
}

TEST(GpuGraphs, CapturedTensorsAndChecksWorkInsideTheGraph) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  Tensor w = tg::randn({512}, DType::F32, 9);
  unsigned line = 0;
  auto f = tg::jit([&](const Tensor& x) {
    line = __LINE__ + 1;
    tg::check(x > -100.0f, "x must stay above -100 (graph)");
    return x * w + 1.0f;
  });
  std::vector<Tensor> xs, got;
  for (int c = 0; c < 5; ++c) {
    xs.push_back(tg::randn({512}, DType::F32, 70 + c, Device::CPU));
    got.push_back(f(xs.back().to(Device::CUDA)));
  }
  EXPECT_NO_THROW(tg::synchronize());  // every check passed
  Tensor wc = w.to(Device::CPU);
  for (size_t c = 0; c < got.size(); ++c)
    compare(got[c], xs[c] * wc + 1.0f, Tolerance{});  // one mul and one add: exact in f32
  EXPECT_TRUE(onlyGraph(f.report()).cudaGraph) << f.report();
  // A failing check inside a graph launch still surfaces at the next sync point.
  Tensor bad = tg::full({512}, -1000.0, DType::F32, Device::CUDA);
  Tensor y = f(bad);
  try {
    tg::synchronize();
    FAIL() << "expected the check to fail";
  } catch (const tg::Error& e) {
    EXPECT_EQ(e.location().line, line);
    EXPECT_NE(std::string(e.what()).find("x must stay above -100 (graph)"), std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW((void)f(xs[0].to(Device::CUDA)).to_vector());  // and it passes again
}

TEST(GpuGraphs, ReportSaysWhenAGraphIsUsed) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  auto f = tg::jit([](const Tensor& x) { return tg::exp(x) + 1.0f; }, {.name = "graphs_report"});
  Tensor x = tg::randn({1 << 12}, DType::F32, 1);
  (void)f(x);
  tg::JitReport r = f.report();
  EXPECT_FALSE(onlyGraph(r).cudaGraph) << "one call builds no graph\n" << r;
  EXPECT_NE(onlyGraph(r).noCudaGraphReason.find("second call"), std::string::npos) << r;
  (void)f(x);
  (void)f(x);
  r = f.report();
  EXPECT_TRUE(onlyGraph(r).cudaGraph) << r;
  EXPECT_EQ(onlyGraph(r).cudaGraphLaunches, 2u) << r;
  EXPECT_TRUE(onlyGraph(r).noCudaGraphReason.empty()) << r;
  EXPECT_EQ(onlyGraph(r).peakDeviceBytes, size_t(4 << 12)) << "one f32 result, no arena\n" << r;
  const std::string text = r.str();
  // Each result died before the next call: the next got the same buffer (the caching
  // allocator's last-released-first), so the graph built at the second call already held the
  // third call's parameters.
  if (cachingAllocator()) {
    EXPECT_EQ(onlyGraph(r).cudaGraphParameterUpdates, 0u) << r;
    EXPECT_NE(text.find("launched as one CUDA graph (2 time(s), 0 kernel parameter update(s))"),
              std::string::npos)
        << text;
  }
  EXPECT_NE(text.find("peak device memory per run: 16.0 KiB"), std::string::npos) << text;

  // A function with a graph break runs its segments kernel by kernel, and says so.
  auto broken = tg::jit([](const Tensor& x) {
    Tensor y = x * 2.0f;
    return y.item() > 0 ? y : -y;
  });
  Tensor one = tg::full({1}, 3.0, DType::F32);
  for (int c = 0; c < 3; ++c) (void)broken(one);
  for (const tg::JitReport::Graph& g : broken.report().graphs) {
    EXPECT_FALSE(g.cudaGraph);
    EXPECT_NE(g.noCudaGraphReason.find("graph breaks"), std::string::npos) << broken.report();
  }
}

// JitOptions::profile: every launch timed, kernel by kernel (no CUDA graph), the results the
// same as without it; the first call is not counted.
TEST(GpuGraphs, ProfiledCallsTimeEveryKernelAndKeepTheirResults) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  auto body = [](const Tensor& x, const Tensor& w) {
    Tensor h = tg::matmul(x, w);
    return tg::softmax(tg::exp(h) * 0.5f + tg::sum(h, {1}, true));
  };
  auto plain = tg::jit(body);
  auto profiled = tg::jit(body, {.profile = true});
  Tensor x = tg::randn({64, 128}, DType::F32, 5), w = tg::randn({128, 96}, DType::F32, 6);
  for (int c = 0; c < 4; ++c) {
    std::string why;
    EXPECT_TRUE(sameBits(profiled(x, w), plain(x, w), why)) << c << ": " << why;
  }
  tg::JitReport r = profiled.report();
  const tg::JitReport::Graph& g = onlyGraph(r);
  EXPECT_FALSE(g.cudaGraph) << r;
  EXPECT_NE(g.noCudaGraphReason.find("profiling"), std::string::npos) << r;
  EXPECT_EQ(g.profiledRuns, 3u) << r;
  ASSERT_EQ(g.profile.size(), g.distinctKernels) << r;
  size_t launches = 0;
  for (size_t i = 0; i < g.profile.size(); ++i) {
    launches += g.profile[i].launches;
    EXPECT_GT(g.profile[i].usPerRun, 0.0) << r;
    if (i) {
      EXPECT_LE(g.profile[i].usPerRun, g.profile[i - 1].usPerRun) << r;
    }
  }
  EXPECT_EQ(launches, g.kernels) << r;
  EXPECT_NE(r.str().find("profile (device events around each launch, over 3 run(s)"), std::string::npos) << r;
  EXPECT_TRUE(onlyGraph(plain.report()).profile.empty());
}

TEST(GpuGraphs, AReplayedCallAllocatesOnlyItsResult) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  for (bool graphs : {true, false}) {
    SCOPED_TRACE(graphs ? "CUDA graph" : "kernel by kernel");
    tg::JitOptions options;
    options.cuda_graphs = graphs;
    auto f = tg::jit([](const Tensor& x, const Tensor& y) { return readmeChain(x, y); }, options);
    Tensor x = tg::randn({1024}, DType::F32, 1), y = tg::randn({1024}, DType::F32, 2);
    std::vector<Tensor> keep(1000);
    for (int i = 0; i < 5; ++i) keep[i] = f(x, y);  // traced, then the graph is built
    // One round first, so that containers which grow once (the device allocator's free lists
    // for 1000 live results) are at their size: seen as 3.001 per call when this test ran
    // without the tests before it.
    for (size_t i = 0; i < keep.size(); ++i) keep[i] = f(i % 2 ? x : y, y);
    const uint64_t before = gAllocations.load();
    for (size_t i = 0; i < keep.size(); ++i) keep[i] = f(i % 2 ? x : y, y);
    const double perCall = double(gAllocations.load() - before) / double(keep.size());
    // The result's device buffer object, its tensor object and the tensor's shape.
    EXPECT_LE(perCall, 3.0) << "C++ allocations per replayed call";
    std::printf("%s: %.2f allocations per replayed call\n", graphs ? "graph" : "direct", perCall);
    tg::synchronize();
  }
}

//===----------------------------------------------------------------------===//
// Device memory
//===----------------------------------------------------------------------===//

TEST(GpuMemory, OutOfMemoryNamesFunctionBytesAndLineAndTheProcessGoesOn) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  tg::rt::Gpu& gpu = *tg::rt::Gpu::get();
  // x[n] + r[m, 1] broadcasts to [m, n]: small inputs, a result as large as m * n asks.
  auto f = tg::jit([](const Tensor& x, const Tensor& r) { return x + r; }, {.name = "huge_outer"});
  const int64_t big = int64_t(1) << 20;  // [2^20, 2^20] f32: 4 TiB, more than any GPU holds
  Tensor x = tg::randn({big}, DType::F32, 1), r = tg::randn({big, 1}, DType::F32, 2);
  tg::synchronize();
  const size_t heldBefore = gpu.bytesFromDriver();
  unsigned line = 0;
  try {
    line = __LINE__ + 1;
    Tensor out = f(x, r);
    ADD_FAILURE() << "expected out of memory for a 4 TiB result";
  } catch (const tg::OutOfMemoryError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("huge_outer"), std::string::npos) << what;
    EXPECT_NE(what.find(std::to_string(big * big * 4)), std::string::npos) << what;
    EXPECT_EQ(e.location().line, line) << what;
    EXPECT_NE(e.location().file.find("GpuGraphsTest.cpp"), std::string::npos) << what;
    std::printf("out-of-memory error: %s\n", what.c_str());
  }
  // The process goes on: the same function with smaller inputs, and the same signature again.
  Tensor xs = tg::randn({1000}, DType::F32, 3, Device::CPU), rs = tg::randn({300, 1}, DType::F32, 4, Device::CPU);
  for (int c = 0; c < 3; ++c) compare(f(xs.to(Device::CUDA), rs.to(Device::CUDA)), xs + rs, Tolerance{});
  EXPECT_THROW((void)f(x, r), tg::OutOfMemoryError);
  tg::synchronize();
  // Nothing of the failed calls stays allocated (the small results are gone too; tg may keep
  // their buffers for reuse, so allow some).
  const size_t heldAfter = gpu.bytesFromDriver();
  EXPECT_LT(static_cast<double>(heldAfter) - static_cast<double>(heldBefore), 64.0 * (1 << 20))
      << "device memory tg holds " << heldBefore << " -> " << heldAfter;
}

TEST(GpuMemory, ReleasedBuffersComeBackLastFirstAndNeverOverlap) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  if (!cachingAllocator()) GTEST_SKIP() << "tests the caching allocator (off: TG_NO_MEMORY_CACHING)";
  tg::rt::Gpu& gpu = *tg::rt::Gpu::get();
  for (size_t bytes : {size_t(1000), size_t(4096), size_t(3) << 20}) {
    SCOPED_TRACE(std::to_string(bytes) + " bytes");
    auto a = gpu.allocate(bytes);
    const tg::rt::DevicePtr first = a->ptr();
    a.reset();
    auto b = gpu.allocate(bytes);
    EXPECT_EQ(b->ptr(), first) << "the buffer just released comes back";
    auto c = gpu.allocate(bytes);
    EXPECT_NE(c->ptr(), b->ptr());
    EXPECT_EQ(c->bytes(), bytes);
  }
  // Many live small buffers (more than one slab), each filled with its own byte: none overlaps
  // another, and what a released one held does not leak into the others.
  std::vector<std::shared_ptr<tg::rt::DeviceBuffer>> live;
  const size_t n = 1500, bytes = 3000;  // 1500 x 3072 rounded: about 2.2 slabs
  for (size_t i = 0; i < n; ++i) {
    live.push_back(gpu.allocate(bytes));
    gpu.fill(live.back()->ptr(), static_cast<uint8_t>(i % 251), 1, bytes);
    if (i % 7 == 3) {  // release some on the way; the next allocation reuses them
      live.pop_back();
      live.push_back(gpu.allocate(bytes));
      gpu.fill(live.back()->ptr(), static_cast<uint8_t>(i % 251), 1, bytes);
    }
  }
  std::vector<uint8_t> host(bytes);
  for (size_t i = 0; i < n; ++i) {
    gpu.copyToHost(host.data(), live[i]->ptr(), bytes);
    const size_t wrong = std::count_if(host.begin(), host.end(),
                                       [&](uint8_t v) { return v != static_cast<uint8_t>(i % 251); });
    ASSERT_EQ(wrong, 0u) << "buffer " << i << " was overwritten";
  }
}

size_t residentBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

TEST(GpuMemory, HundredThousandCallsStayFlat) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  if (!cachingAllocator()) GTEST_SKIP() << "tests the caching allocator (off: TG_NO_MEMORY_CACHING)";
  tg::rt::Gpu& gpu = *tg::rt::Gpu::get();
  auto f = tg::jit([](const Tensor& x, const Tensor& y) { return readmeChain(x, y); });
  Tensor x = tg::randn({1024}, DType::F32, 1), y = tg::randn({1024}, DType::F32, 2);
  Tensor z;
  for (int i = 0; i < 2000; ++i) z = f(x, y);  // warm: the pool and the allocator settle
  tg::synchronize();
  const size_t hostBefore = residentBytes(), deviceBefore = gpu.bytesFromDriver();
  const int calls = 100000;
  for (int i = 0; i < calls; ++i) z = f(i % 2 ? x : z, y);  // results feed the next call
  tg::synchronize();
  const size_t hostAfter = residentBytes(), deviceAfter = gpu.bytesFromDriver();
  const double hostGrowth = static_cast<double>(hostAfter) - static_cast<double>(hostBefore);
  const double deviceGrowth = static_cast<double>(deviceAfter) - static_cast<double>(deviceBefore);
  std::printf("%d calls: host RSS %zu -> %zu bytes (%+.0f), device memory tg holds %zu -> %zu "
              "bytes (%+.0f)\n",
              calls, hostBefore, hostAfter, hostGrowth, deviceBefore, deviceAfter, deviceGrowth);
  EXPECT_LT(hostGrowth, 4.0 * (1 << 20)) << "host memory grows with calls (a leak per call?)";
  EXPECT_LT(deviceGrowth, 32.0 * (1 << 20)) << "device memory grows with calls";
  EXPECT_TRUE(onlyGraph(f.report()).cudaGraph) << f.report();
  EXPECT_EQ(f.report().replays, uint64_t(calls + 2000 - 1));
}

}  // namespace
