//===- GpuCreationTest.cpp - CUDA tensors are made on the device ----------===//
//
// Issue 13, bug 3: tg::full / zeros / ones / rand / randn on CUDA make their values on the
// device (a memset, or the counter-based random kernel), with no host buffer: the same bits
// as the CPU tensor of the same seed for every float dtype and odd sizes, and a tensor larger
// than the GPU is a tg::OutOfMemoryError naming the bytes and the line (not std::bad_alloc),
// after which the process goes on. Every test skips without a GPU.
//
//===----------------------------------------------------------------------===//
#include "GpuCompare.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using namespace tggpu;

TEST(GpuCreation, RandomTensorsHoldTheCpuBits) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  for (DType d : {DType::F32, DType::BF16, DType::F16})
    for (int64_t n : {int64_t{1}, int64_t{1000003}, int64_t{1} << 22}) {
      SCOPED_TRACE(std::string(tg::dtype_name(d)) + "[" + std::to_string(n) + "]");
      for (uint64_t seed : {uint64_t{0}, uint64_t{42}}) {
        std::string why;
        Tensor gn = tg::randn({n}, d, seed, Device::CUDA), cn = tg::randn({n}, d, seed, Device::CPU);
        EXPECT_TRUE(sameBits(gn, cn, why)) << "randn: " << why;
        Tensor gu = tg::rand({n}, d, seed, Device::CUDA), cu = tg::rand({n}, d, seed, Device::CPU);
        EXPECT_TRUE(sameBits(gu, cu, why)) << "rand: " << why;
      }
    }
}

TEST(GpuCreation, FullHoldsTheValueInEveryDType) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  for (DType d : {DType::F32, DType::BF16, DType::F16, DType::I32, DType::Bool})
    for (double v : {0.0, 1.0, -3.25, 1e-3}) {
      if (d == DType::Bool && v != 0 && v != 1) continue;
      if (d == DType::I32 && v != static_cast<int>(v)) continue;
      SCOPED_TRACE(std::string(tg::dtype_name(d)) + " " + std::to_string(v));
      std::string why;
      EXPECT_TRUE(sameBits(tg::full({3, 1001}, v, d, Device::CUDA), tg::full({3, 1001}, v, d, Device::CPU), why))
          << why;
    }
  EXPECT_EQ(tg::zeros({0}, DType::F32, Device::CUDA).numel(), 0);
}

TEST(GpuCreation, TensorsLargerThanTheGpuAreOutOfMemoryErrors) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  const int64_t big = int64_t{1} << 40;  // 4 TiB of f32
  for (int which = 0; which < 3; ++which) {
    const unsigned first = __LINE__ + 4;  // the line of each call below
    unsigned line = 0;
    try {
      line = first + which;
      Tensor t = which == 0 ? tg::zeros({big}, DType::F32, Device::CUDA)
                 : which == 1 ? tg::randn({big}, DType::F32, 1, Device::CUDA)
                              : tg::full({big / 2}, 2.0, DType::BF16, Device::CUDA);
      ADD_FAILURE() << "expected tg::OutOfMemoryError";
    } catch (const tg::OutOfMemoryError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(which == 2 ? "1099511627776 bytes" : "4398046511104 bytes"), std::string::npos) << what;
      EXPECT_NE(what.find(which == 0 ? "zeros" : which == 1 ? "randn" : "full"), std::string::npos) << what;
      EXPECT_EQ(e.location().line, line) << what;
    }
  }
  // The process goes on.
  std::string why;
  EXPECT_TRUE(sameBits(tg::randn({1000}, DType::F32, 3, Device::CUDA), tg::randn({1000}, DType::F32, 3, Device::CPU), why));
}

}  // namespace
