//===- CreationTest.cpp - Making tensors: values, sizes, memory errors (CPU) ===//
//
// Issue 13, bug 3: tensors are made where they live. tg::rand / randn values come from one
// definition (tg/Support/CounterRandom.h) that the host evaluates and the GPU kernel compiles
// (checked here with NVRTC; GpuCreation.* checks the bits on a GPU); it keeps the values tg has
// always produced (checked against the formula with the C library's log and cos). A shape too
// large for memory is a tg::Error, and an allocation the machine cannot serve a
// tg::OutOfMemoryError naming the bytes and the user's line, never std::bad_alloc.
//
//===----------------------------------------------------------------------===//
#include <tg/tg.h>

#include "tg/Runtime/DeviceRandom.h"
#include "tg/Runtime/KernelCache.h"
#include "tg/Runtime/Nvrtc.h"
#include "tg/Support/CounterRandom.h"

#include "Sanitizers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using tg::Device;
using tg::DType;

// The generator as tg wrote it before (libm's log and cos in double): the values must not
// change.
uint64_t mixOld(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
double uniformOld(uint64_t seed, uint64_t index, uint64_t stream) {
  uint64_t bits = mixOld(mixOld(seed * 0x9e3779b97f4a7c15ull + stream) + index);
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

TEST(Creation, RandomValuesAreTheOnesTgAlwaysMade) {
  for (uint64_t seed : {0ull, 7ull, 123456789ull}) {
    const int64_t n = 200003;
    std::vector<float> normal = tg::randn({n}, DType::F32, seed, Device::CPU).to_vector();
    std::vector<float> uniform = tg::rand({n}, DType::F32, seed, Device::CPU).to_vector();
    std::vector<float> uniformBf16 = tg::rand({n}, DType::BF16, seed, Device::CPU).to_vector();
    int64_t differ = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double u1 = 1.0 - uniformOld(seed, i, 1), u2 = uniformOld(seed, i, 2);
      const float want = static_cast<float>(std::sqrt(-2.0 * std::log(u1)) *
                                            std::cos(6.283185307179586 * u2));
      differ += normal[i] != want;
      ASSERT_EQ(uniform[i], static_cast<float>(std::floor(uniformOld(seed, i, 0) * 0x1p24) / 0x1p24));
      ASSERT_EQ(uniformBf16[i], static_cast<float>(std::floor(uniformOld(seed, i, 0) * 256) / 256));
    }
    EXPECT_EQ(differ, 0) << "seed " << seed;  // a double-rounding tie could differ; none does
  }
}

// The series for log and cos hold about 1 ulp of double over their whole ranges.
TEST(Creation, CounterRandomLogAndCosAreAccurate) {
  double worstLog = 0, worstCos = 0;
  for (int i = 1; i <= 1000000; ++i) {
    const double u = std::ldexp(static_cast<double>(i) * 9007199254740.0 + 0.5, -53);  // (0, 1]
    const double want = std::log(u);
    if (want != 0) worstLog = std::max(worstLog, std::fabs(tg_random::log(u) - want) / std::fabs(want));
    const double t = (i - 0.5) / 1000000.0;  // [0, 1)
    worstCos = std::max(worstCos, std::fabs(tg_random::cos2pi(t) - std::cos(2 * M_PI * t)));
  }
  EXPECT_EQ(tg_random::log(1.0), 0.0);
  EXPECT_LT(worstLog, 4e-16);
  EXPECT_LT(worstCos, 1e-15);
}

TEST(Creation, RandomKernelsCompileForTheGpu) {
  std::string why;
  if (!tg::rt::nvrtcAvailable(&why)) GTEST_SKIP() << "NVRTC unavailable: " << why;
  for (DType d : {DType::F32, DType::BF16, DType::F16})
    for (auto dist : {tg::rt::RandomDistribution::Normal, tg::rt::RandomDistribution::Uniform}) {
      tg::rt::KernelSource k = tg::rt::randomKernel(d, dist);
      SCOPED_TRACE(k.name);
      tg::rt::NvrtcResult r = tg::rt::compileCuda(k.source, k.name + ".cu", "sm_90a", tg::rt::defaultNvrtcOptions());
      EXPECT_FALSE(r.cubin.empty());
      // No call into CUDA's math library: log, cos and sqrt are the header's own operations.
      EXPECT_EQ(r.ptx.find("call"), std::string::npos);
    }
  EXPECT_THROW(tg::rt::randomKernel(DType::I32, tg::rt::RandomDistribution::Normal), tg::Error);
}

template <typename Fn>
void expectError(Fn fn, unsigned line, const std::vector<std::string>& fragments, bool oom) {
  try {
    fn();
    ADD_FAILURE() << "expected a tg::Error";
  } catch (const tg::OutOfMemoryError& e) {
    EXPECT_TRUE(oom) << e.what();
    for (const std::string& f : fragments)
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
    EXPECT_EQ(e.location().line, line) << e.what();
  } catch (const tg::Error& e) {
    EXPECT_FALSE(oom) << e.what();
    for (const std::string& f : fragments)
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
    EXPECT_EQ(e.location().line, line) << e.what();
  }
}

TEST(Creation, HugeTensorsAreErrorsNotCrashes) {
  const int64_t big = int64_t{1} << 40;  // 4 TiB of f32: more than this machine has
  unsigned line = 0;
#if !TG_UNDER_ASAN  // (ASan ends the process on a failed allocation: tests/common/Sanitizers.h)
  line = __LINE__ + 1;
  expectError([&] { (void)tg::zeros({big}, DType::F32, Device::CPU); }, line,
              {"zeros", "out of host memory", "4398046511104 bytes"}, /*oom=*/true);
  line = __LINE__ + 1;
  expectError([&] { (void)tg::randn({big}, DType::F32, 1, Device::CPU); }, line,
              {"randn", "out of host memory"}, true);
#endif
  line = __LINE__ + 1;
  expectError([&] { (void)tg::full({big, big}, 1.0, DType::F32, Device::CPU); }, line,
              {"full", "takes more than 2^48 bytes"}, false);
  line = __LINE__ + 1;
  expectError([&] { (void)tg::rand({-1, 4}); }, line, {"rand", "negative extent"}, false);
  // Nothing was lost: creation works afterwards.
  EXPECT_EQ(tg::ones({3}, DType::F32, Device::CPU).to_vector(), (std::vector<float>{1, 1, 1}));
}

TEST(Creation, FullKeepsEveryDTypesValue) {
  EXPECT_EQ(tg::full({5}, 2.5, DType::BF16, Device::CPU).to_vector(), std::vector<float>(5, 2.5f));
  EXPECT_EQ(tg::full({2, 3}, -7.0, DType::I32, Device::CPU).to_vector<int32_t>(),
            std::vector<int32_t>(6, -7));
  EXPECT_EQ(tg::full({4}, 1.0, DType::Bool, Device::CPU).to_vector<bool>(), std::vector<bool>(4, true));
  EXPECT_TRUE(tg::zeros({0, 3}, DType::F16, Device::CPU).to_vector().empty());
}

}  // namespace
