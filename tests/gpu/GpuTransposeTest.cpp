//===- GpuTransposeTest.cpp - The tiled transpose kernel on the GPU -------===//
//
// A kernel that only transposes its input's last two dims (a function returning x^T, or the
// K-major copy of an f32 matmul operand) runs templates/transpose.cuh: 32 x 32 tiles through
// shared memory. Its results must equal the CPU interpreter's bit for bit (it only moves
// elements) for every dtype, ragged edges, batches and a matrix of 4M elements.
//
// Layout chains that are not a plain transpose are read in place by the fused kernels, at
// offsets printed as C (codegen::IndexExpr). A transpose followed by a reshape gives a sum
// under / and %; printed without parentheses it read the wrong elements (found by the random
// programs on the H200, seed 2782). Elementwise and reduction kernels over such chains must
// equal the interpreter bit for bit (exact f32 ops, i32 sums, max).
//
//===----------------------------------------------------------------------===//
#include "GpuCompare.h"
#include "GpuPlan.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

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

TEST(GpuTranspose, LayoutChainsInsideFusedKernelsReadTheRightElements) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  struct Case {
    Shape in, split;
    std::vector<int64_t> perm;
    Shape merged;
    std::vector<int64_t> axes;
  };
  const Case cases[] = {
      {{128, 48}, {48, 2, 64}, {}, {48, 2, 64}, {0, 2}},       // the random program's chain
      {{8, 64, 96}, {8, 64, 6, 16}, {0, 2, 1, 3}, {48, 1024}, {1}},  // heads split, moved
      {{3, 5, 7}, {7, 5, 3}, {2, 1, 0}, {35, 3}, {0}},
      {{1000, 6}, {2, 3, 1000}, {2, 0, 1}, {6, 1000}, {1}},
  };
  uint64_t seed = 4100;
  for (const Case& c : cases) {
    SCOPED_TRACE(tg::format_shape(c.in) + " -> " + tg::format_shape(c.merged));
    // transpose then reshape (in -> [t] -> split -> [p] -> merged), read by an elementwise op
    auto chain = [&](const Tensor& x) {
      Tensor t = tg::reshape(tg::transpose(x, 0, -1), c.split);
      if (!c.perm.empty()) t = tg::transpose(t, c.perm);
      return tg::reshape(t, c.merged);
    };
    auto elementwise = [&](const Tensor& x) { return chain(x) * 2.0f + 1.0f; };
    auto reductions = [&](const Tensor& x, const Tensor& i) {
      return std::make_tuple(tg::max(chain(x), c.axes), tg::sum(chain(i), c.axes));
    };
    Tensor x = tg::randn(c.in, DType::F32, seed++, Device::CPU);
    Tensor i = tg::cast(tg::randn(c.in, DType::F32, seed++, Device::CPU) * 1000.0f, DType::I32);
    std::string why;
    Tensor want = tg::jit(elementwise)(x);
    Tensor got = tg::jit(elementwise)(x.to(Device::CUDA));
    EXPECT_TRUE(sameBits(got.to(Device::CPU), want, why)) << "elementwise: " << why;
    auto [wantMax, wantSum] = tg::jit(reductions)(x, i);
    auto [gotMax, gotSum] = tg::jit(reductions)(x.to(Device::CUDA), i.to(Device::CUDA));
    EXPECT_TRUE(sameBits(gotMax.to(Device::CPU), wantMax, why)) << "max: " << why;
    EXPECT_TRUE(sameBits(gotSum.to(Device::CPU), wantSum, why)) << "i32 sum: " << why;
  }
}

}  // namespace
