//===- GpuTransposeTest.cpp - The tiled transpose kernel on the GPU -------===//
//
// A kernel that only transposes its input's last two dims (a function returning x^T, or the
// K-major copy of an f32 matmul operand) runs templates/transpose.cuh: 32 x 32 tiles through
// shared memory. Its results must equal the CPU interpreter's bit for bit (it only moves
// elements) for every dtype, ragged edges, batches and a matrix of 4M elements.
//
//===----------------------------------------------------------------------===//
#include "GpuCompare.h"
#include "GpuPlan.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace tggpu;
using tg::Shape;

TEST(GpuTranspose, TiledCopyEqualsTheInterpreter) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  tg::rt::Gpu& gpu = *tg::rt::Gpu::get();
  const Shape shapes[] = {{2048, 2048}, {33, 65}, {1000, 3}, {3, 100, 37}, {2, 3, 64, 96}};
  uint64_t seed = 900;
  for (const Shape& shape : shapes)
    for (DType d : {DType::F32, DType::BF16, DType::F16, DType::I32, DType::Bool}) {
      SCOPED_TRACE(std::string(tg::dtype_name(d)) + tg::format_shape(shape));
      auto fn = [](const Tensor& x) { return tg::transpose(x, -2, -1); };
      const tg::rt::Plan plan = planFor(tg::jit(fn).trace_ir(tg::TensorSpec{shape, d}), gpu);
      ASSERT_EQ(plan.kernels.size(), 1u) << plan.str();
      EXPECT_NE(plan.kernels[0].summary.find("transpose (32 x 32 tiles"), std::string::npos) << plan.str();
      // Varied values in every dtype: randn * 100 cast for numbers, randn > 0 for bools.
      Tensor r = tg::randn(shape, DType::F32, seed++, Device::CPU);
      Tensor x = d == DType::Bool ? r > 0.0f : tg::cast(r * 100.0f, d);
      Tensor want = tg::jit(fn)(x);
      Tensor got = tg::jit(fn)(x.to(Device::CUDA));
      std::string why;
      EXPECT_TRUE(sameBits(got.to(Device::CPU), want, why)) << why;
    }
}

}  // namespace
