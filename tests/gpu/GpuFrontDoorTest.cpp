//===- GpuFrontDoorTest.cpp - Zero-size tensors and splats on the GPU ------===//
//
// Issue 13, item 7, on a GPU: zero-size tensors in eager ops and jit functions (kernels over
// no elements are not launched; sums, maxes and means over an empty axis and a matmul with
// K = 0 still compute their results), splat constants that a jit function returns or hands to
// a matmul (a fill kernel, never a host buffer of the full size). Each against the same calls
// on the CPU reference, bit for bit (no arithmetic differs here but the TF32 matmul, whose
// inputs are exact in TF32).
//
//===----------------------------------------------------------------------===//
#include <tg/tg.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

namespace {

using tg::Device;
using tg::DType;
using tg::Shape;
using tg::Tensor;

/// The same values, NaN equal to NaN.
void expectSameBits(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.shape(), want.shape());
  std::vector<float> g = got.to_vector<float>(), w = want.to_vector<float>();
  ASSERT_EQ(g.size(), w.size());
  for (size_t i = 0; i < g.size(); ++i)
    EXPECT_TRUE(g[i] == w[i] || (std::isnan(g[i]) && std::isnan(w[i]))) << i << ": " << g[i] << " vs " << w[i];
}

TEST(GpuFrontDoor, ZeroSizeEagerOps) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  for (Device d : {Device::CPU, Device::CUDA}) {
    SCOPED_TRACE(d == Device::CPU ? "cpu" : "cuda");
    Tensor x = tg::zeros({3, 0}, DType::F32, d);
    EXPECT_EQ(tg::exp(x).shape(), (Shape{3, 0}));
    EXPECT_EQ(tg::transpose(x, {1, 0}).to_vector<float>().size(), 0u);
    EXPECT_EQ(tg::sum(x, {1}).to_vector<float>(), std::vector<float>(3, 0.0f));
    for (float m : tg::max(x, {1}).to_vector<float>()) EXPECT_EQ(m, -std::numeric_limits<float>::infinity());
    for (float m : tg::mean(x, {1}).to_vector<float>()) EXPECT_TRUE(std::isnan(m));
    Tensor a = tg::zeros({64, 0}, DType::BF16, d), b = tg::zeros({0, 64}, DType::BF16, d);
    EXPECT_EQ(tg::matmul(a, b).to_vector<float>(), std::vector<float>(64 * 64, 0.0f));
  }
}

TEST(GpuFrontDoor, ZeroSizeJit) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  auto f = tg::jit([](const Tensor& p, const Tensor& q, const Tensor& w) {
    return std::make_tuple(tg::exp(p) * 2.0f, tg::sum(p, {1}) + 1.0f, tg::matmul(q, w) + 1.0f);
  });
  auto run = [&](Device d) {
    return f(tg::zeros({3, 0}, DType::F32, d), tg::zeros({128, 0}, DType::F32, d),
             tg::zeros({0, 128}, DType::F32, d));
  };
  for (int call = 0; call < 3; ++call) {  // the second and third replay (CUDA graph)
    auto [e, s, m] = run(Device::CUDA);
    auto [ec, sc, mc] = run(Device::CPU);
    expectSameBits(e, ec);
    expectSameBits(s, sc);
    expectSameBits(m, mc);
  }
}

TEST(GpuFrontDoor, SplatsAreFilledOnTheDevice) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  // tg::full inside a jit function is a splat constant: returned, and as a matmul operand
  // ("matmul operands must be contiguous inputs" before).
  auto f = tg::jit([](const Tensor& x) {
    Tensor w = tg::full({256, 256}, 0.5, DType::BF16);
    return std::make_tuple(tg::full({1 << 24}, 1.5, DType::F32), tg::matmul(x, w));
  });
  Tensor x = tg::randn({256, 256}, DType::BF16, 7, Device::CUDA);
  auto [filled, product] = f(x);
  auto [filledCpu, productCpu] = f(x.to(Device::CPU));
  expectSameBits(filled, filledCpu);
  // bf16 inputs, f32 accumulation of 256 products each: the GPU's sum order may differ from
  // the reference's f64 sum by a few f32 ulps before the bf16 rounding; compare within 1%.
  std::vector<float> g = product.to_vector<float>(), c = productCpu.to_vector<float>();
  ASSERT_EQ(g.size(), c.size());
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], c[i], 0.01f * (1.0f + std::fabs(c[i]))) << i;
}

}  // namespace
