//===- GpuRuntimeTest.cpp - Devices, replay, graph breaks and checks on the GPU ===//
//
// Every test skips without a GPU.
//  (e) GpuDevices.*  mixing devices throws tg::Error naming both; to_vector of CUDA tensors;
//                    .to(CPU) / .to(CUDA) round trips; randn is device-independent.
//  (f) GpuJit.*      a jit function called 3 times with new inputs is right every time
//                    (replay), and earlier results stay valid.
//  (g) GpuBreaks.*   graph-break segments run as kernels and match the CPU; tg::check fails
//                    asynchronously with its line; host reads of CUDA tensors are sync points.
//
//===----------------------------------------------------------------------===//
#include "GpuCompare.h"
#include "OpCases.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace tggpu;

//===----------------------------------------------------------------------===//
// (e) Devices
//===----------------------------------------------------------------------===//

template <typename Fn>
void expectDeviceError(Fn fn, const std::string& what) {
  try {
    fn();
    ADD_FAILURE() << what << ": expected a tg::Error";
  } catch (const tg::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("cpu"), std::string::npos) << what << ": " << m;
    EXPECT_NE(m.find("cuda"), std::string::npos) << what << ": " << m;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": expected a tg::Error, got " << e.what();
  }
}

TEST(GpuDevices, MixingDevicesThrowsNamingBoth) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  Tensor c = tg::randn({4, 8}, DType::F32, 1, Device::CPU);
  Tensor g = tg::randn({4, 8}, DType::F32, 2, Device::CUDA);
  Tensor gb = tg::randn({8}, DType::F32, 3, Device::CUDA);
  expectDeviceError([&] { (void)tg::add(c, g); }, "add(cpu, cuda)");
  expectDeviceError([&] { (void)(g * c); }, "cuda * cpu");
  expectDeviceError([&] { (void)(c + gb); }, "cpu + cuda (broadcast)");
  expectDeviceError([&] { (void)tg::where(c > 0.0, g, g); }, "where(cpu cond, cuda, cuda)");
  expectDeviceError([&] { (void)tg::matmul(c, tg::transpose(g, 0, 1)); }, "matmul(cpu, cuda)");
  auto f = tg::jit([](const Tensor& a, const Tensor& b) { return a + b; });
  expectDeviceError([&] { (void)f(c, g); }, "jit(cpu, cuda)");
}

TEST(GpuDevices, ToVectorAndRoundTrips) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  const std::vector<std::pair<DType, tgtest::Domain>> kinds = {
      {DType::F32, tgtest::Domain::Normal}, {DType::F16, tgtest::Domain::Normal},
      {DType::BF16, tgtest::Domain::Normal}, {DType::I32, tgtest::Domain::Int},
      {DType::Bool, tgtest::Domain::Bool}};
  for (auto [d, domain] : kinds) {
    SCOPED_TRACE(tg::dtype_name(d));
    Tensor cpu = tgtest::domainInputs({{{3, 77}, d}}, {domain}, 5, Device::CPU)[0];
    Tensor gpu = cpu.to(Device::CUDA);
    EXPECT_EQ(gpu.device(), Device::CUDA);
    EXPECT_EQ(gpu.dtype(), d);
    EXPECT_EQ(gpu.shape(), cpu.shape());
    EXPECT_EQ(gpu.to(Device::CUDA).impl_ptr(), gpu.impl_ptr()) << ".to(its own device) is a no-op";
    Tensor back = gpu.to(Device::CPU);
    EXPECT_EQ(back.device(), Device::CPU);
    if (tg::is_floating(d)) {
      EXPECT_EQ(gpu.to_vector<float>(), cpu.to_vector<float>());
      EXPECT_EQ(back.to_vector<float>(), cpu.to_vector<float>());
    } else {
      EXPECT_EQ(gpu.to_vector<int32_t>(), cpu.to_vector<int32_t>());
      EXPECT_EQ(back.to_vector<int32_t>(), cpu.to_vector<int32_t>());
      EXPECT_EQ(gpu.to_vector<bool>(), cpu.to_vector<bool>());
    }
    // Results of GPU layout ops read back, against the same ops on the CPU.
    auto layout = [](const Tensor& t) {
      return tg::broadcast_to(tg::reshape(tg::transpose(t, 0, 1), {3 * 77, 1}), {3 * 77, 2});
    };
    Tensor onGpu = layout(gpu);
    EXPECT_EQ(onGpu.device(), Device::CUDA);
    compare(onGpu, layout(cpu), Tolerance{});
    compare(onGpu.to(Device::CPU), layout(cpu), Tolerance{});
  }
  Tensor scalar = tg::from_vector({2.5f}, {1}, DType::F32, Device::CUDA);
  EXPECT_EQ(scalar.item<float>(), 2.5f);
}

TEST(GpuDevices, RandnIsTheSameOnEveryDevice) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  for (DType d : {DType::F32, DType::F16, DType::BF16}) {
    Tensor c = tg::randn({1000}, d, 77, Device::CPU), g = tg::randn({1000}, d, 77, Device::CUDA);
    EXPECT_EQ(g.device(), Device::CUDA);
    EXPECT_EQ(c.to_vector<float>(), g.to_vector<float>()) << tg::dtype_name(d);
  }
  EXPECT_EQ(tg::default_device(), Device::CUDA);
}

//===----------------------------------------------------------------------===//
// (f) Replay
//===----------------------------------------------------------------------===//

TEST(GpuJit, ReplayWithChangingInputs) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  int traces = 0;
  auto f = tg::jit([&traces](const Tensor& x, const Tensor& y) {
    ++traces;
    return readmeChain(x, y);
  });
  auto reference = tg::jit([](const Tensor& x, const Tensor& y) { return readmeChain(x, y); });
  const int64_t n = 4099;
  std::vector<Tensor> got, want, ys;
  for (int call = 0; call < 3; ++call) {
    Tensor x = tg::randn({n}, DType::F32, 100 + call, Device::CPU);
    Tensor y = tg::randn({n}, DType::F32, 200 + call, Device::CPU);
    got.push_back(f(x.to(Device::CUDA), y.to(Device::CUDA)));
    want.push_back(reference(x, y));
    ys.push_back(y);
  }
  EXPECT_EQ(traces, 1) << "calls with the same signature must replay, not retrace";
  // Read every result only now: a replay must not overwrite an earlier call's result.
  for (int call = 0; call < 3; ++call) {
    SCOPED_TRACE("call " + std::to_string(call));
    EXPECT_EQ(got[call].device(), Device::CUDA);
    const std::vector<float> yv = ys[call].to_vector<float>();
    compare(got[call], want[call], [&](int64_t i, double z) { return chainBound(DType::F32, yv[i], z); },
            1e-5, "the chain's per-op error bound (chainBound)");
  }
  EXPECT_NE(got[0].to_vector<float>(), got[1].to_vector<float>()) << "new inputs, same result?";
  // A new shape traces again and is right too.
  Tensor x = tg::randn({7, 3}, DType::F32, 300, Device::CPU), y = tg::randn({7, 3}, DType::F32, 301, Device::CPU);
  Tensor z = f(x.to(Device::CUDA), y.to(Device::CUDA));
  EXPECT_EQ(traces, 2);
  const std::vector<float> yv = y.to_vector<float>();
  compare(z, reference(x, y), [&](int64_t i, double r) { return chainBound(DType::F32, yv[i], r); },
          1e-5, "the chain's per-op error bound (chainBound)");
  // And the first signature still replays.
  Tensor again = f(tg::randn({n}, DType::F32, 100, Device::CUDA), tg::randn({n}, DType::F32, 200, Device::CUDA));
  EXPECT_EQ(traces, 2);
  std::string why;
  EXPECT_TRUE(sameBits(again, got[0], why)) << "same inputs, different bits: " << why;
}

}  // namespace

//===----------------------------------------------------------------------===//
// (g) Graph breaks, tg::check and sync points on the GPU
//===----------------------------------------------------------------------===//

namespace {

TEST(GpuBreaks, SegmentsRunOnTheGpuAndMatchTheCpu) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  auto fn = [](const Tensor& x) {
    Tensor y = tg::exp(x * 0.5f);
    float m = tg::max(y).item();  // graph break
    if (m > 1.0f) return y / m;   // data-dependent branch
    return y;
  };
  auto f = tg::jit(fn);
  Tensor cpu = tg::randn({1000}, DType::F32, 5, Device::CPU);
  Tensor got = f(cpu.to(Device::CUDA));
  EXPECT_EQ(got.device(), Device::CUDA);
  std::vector<float> g = got.to_vector(), w = fn(cpu).to_vector();
  ASSERT_EQ(g.size(), w.size());
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], w[i], 2e-6f * std::fabs(w[i])) << i;
  tg::JitReport r = f.report();
  EXPECT_EQ(r.breaks.size(), 1u);
  ASSERT_EQ(r.graphs.size(), 2u);
  EXPECT_GT(r.graphs[0].kernels, 0u);  // compiled kernels, not the interpreter
  uint64_t misses = r.cacheMisses;
  (void)f(cpu.to(Device::CUDA)).to_vector();
  EXPECT_EQ(f.report().cacheMisses, misses);  // no recompiles
}

TEST(GpuBreaks, ChecksFailAsynchronouslyWithTheirLine) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  unsigned line = 0;
  auto f = tg::jit([&](const Tensor& x) {
    line = __LINE__ + 1;
    tg::check(x > 0.0f, "x must be positive (GPU)");
    return x * 2.0f;
  });
  Tensor good = tg::full({64}, 1.0, DType::F32, Device::CUDA);
  EXPECT_NO_THROW((void)f(good).to_vector());
  Tensor bad = tg::full({64}, -1.0, DType::F32, Device::CUDA);
  Tensor y = f(bad);  // no wait here
  try {
    (void)y.to_vector();
    FAIL() << "expected the check to fail";
  } catch (const tg::Error& e) {
    EXPECT_EQ(e.location().line, line);
    EXPECT_NE(std::string(e.what()).find("x must be positive (GPU)"), std::string::npos);
  }
  EXPECT_NO_THROW((void)y.to_vector());  // raised once
  EXPECT_TRUE(f.report().breaks.empty());
}

TEST(GpuBreaks, HostReadsOfCudaTensorsAreSyncPoints) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  tg::clear_sync_points();
  Tensor x = tg::full({4}, 2.0, DType::F32, Device::CUDA);
  unsigned line = __LINE__ + 1;
  float v = tg::sum(x).item();
  EXPECT_EQ(v, 8.0f);
  std::vector<tg::JitReport::Event> events = tg::sync_points();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].what, "item()");
  EXPECT_EQ(events[0].loc.line, line);
}

}  // namespace
