//===- GpuReductionTest.cpp - Long reductions split across blocks ---------===//
//
// Few, long reductions run as several blocks per output whose partials the last block to
// finish combines (compiler/lib/CodeGen/templates/reduction.cuh, TG_SPLIT). These tests cover
// that path against the CPU reference on fresh random inputs: full reductions of up to 4M
// elements, axis reductions with few outputs (contiguous and strided), every reduction kind,
// f32/bf16/i32; and that repeated launches give the same bits (the arrival counters reset,
// the combine order does not depend on block scheduling). Every test skips without a GPU.
//
//===----------------------------------------------------------------------===//
#include "GpuCompare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include <string>
#include <vector>

namespace {

using namespace tggpu;

using Reduce = Tensor (*)(const Tensor&, std::vector<int64_t>, bool, tg::Loc);

struct Kind {
  const char* name;
  Reduce fn;
};
const Kind kKinds[] = {{"sum", &tg::sum}, {"max", &tg::max}, {"mean", &tg::mean}};

/// Checks one reduction of `x` (on the CPU) over `axes` on the GPU against the CPU, with f32
/// accumulation's tolerance (GpuCompare.h: accumulationRel x the same reduction of |x|).
void checkReduction(const Kind& kind, const Tensor& x, std::vector<int64_t> axes, int64_t reduced) {
  SCOPED_TRACE(std::string(kind.name) + " of " + tg::dtype_name(x.dtype()) + tg::format_shape(x.shape()) +
               " over " + std::to_string(axes.size()) + " axes");
  Tensor want = kind.fn(x, axes, false, tg::Loc::current());
  Tensor got = kind.fn(x.to(Device::CUDA), axes, false, tg::Loc::current());
  ASSERT_EQ(got.device(), Device::CUDA);
  Tolerance tol;
  tol.scaled = accumulationRel(reduced);
  tol.dtypeUlps = x.dtype() == DType::F32 ? 0 : 1;
  tol.rule = std::string(kind.name) + ": f32 accumulation, accumulationRel(" + std::to_string(reduced) +
             ") x the same reduction of |x|";
  std::vector<double> scale =
      tg::is_floating(x.dtype()) ? absValues(kind.fn(tg::abs(x), axes, false, tg::Loc::current()))
                                 : std::vector<double>{};
  compare(got, want, tol, scale);
}

TEST(GpuReductions, FullReductionsOfLongInputs) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  for (int64_t n : {int64_t{2048}, int64_t{4096 * 5 + 3}, int64_t{(1 << 20) + 7}, int64_t{1} << 22}) {
    Tensor x = tg::randn({n}, DType::F32, 11 + n, Device::CPU) + 0.25f;  // a nonzero mean
    for (const Kind& k : kKinds) checkReduction(k, x, {}, n);
  }
  const int64_t n = (1 << 20) + 7;
  Tensor xb = tg::randn({n}, DType::BF16, 12, Device::CPU);
  for (const Kind& k : kKinds) checkReduction(k, xb, {}, n);
  Tensor xi = tg::cast(tg::randn({n}, DType::F32, 13, Device::CPU) * 1000.0f, DType::I32);
  checkReduction(kKinds[0], xi, {}, n);  // i32 sum: exact (wrapping) in any order
  checkReduction(kKinds[1], xi, {}, n);
}

TEST(GpuReductions, AxisReductionsWithFewOutputs) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  Tensor rows = tg::randn({3, 300001}, DType::F32, 21, Device::CPU);  // contiguous slices
  for (const Kind& k : kKinds) checkReduction(k, rows, {1}, 300001);
  Tensor cols = tg::randn({100003, 5}, DType::F32, 22, Device::CPU);  // strided slices
  for (const Kind& k : kKinds) checkReduction(k, cols, {0}, 100003);
  Tensor cube = tg::randn({64, 10, 300}, DType::F32, 23, Device::CPU);  // two of three axes
  for (const Kind& k : kKinds) checkReduction(k, cube, {0, 2}, 64 * 300);
}

// Reductions over dims followed by kept ones run as column kernels (templates/columns.cuh):
// 32 adjacent outputs per block, the rows split over blocks whose partials the last combines.
TEST(GpuReductions, ColumnReductions) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  Tensor big = tg::randn({8192, 4096}, DType::F32, 41, Device::CPU) + 0.25f;  // rows in slices
  for (const Kind& k : kKinds) checkReduction(k, big, {0}, 8192);
  Tensor tail = tg::randn({1000, 33}, DType::F32, 42, Device::CPU);  // a partial column tile
  for (const Kind& k : kKinds) checkReduction(k, tail, {0}, 1000);
  Tensor middle = tg::randn({7, 300, 64}, DType::F32, 43, Device::CPU);  // kept dims on both sides
  for (const Kind& k : kKinds) checkReduction(k, middle, {1}, 300);
  Tensor leading = tg::randn({6, 50, 40}, DType::F32, 44, Device::CPU);  // two leading dims
  for (const Kind& k : kKinds) checkReduction(k, leading, {0, 1}, 300);
  Tensor b = tg::randn({4096, 1000}, DType::BF16, 45, Device::CPU);
  for (const Kind& k : kKinds) checkReduction(k, b, {0}, 4096);
  Tensor i = tg::cast(tg::randn({3000, 100}, DType::F32, 46, Device::CPU) * 1000.0f, DType::I32);
  checkReduction(kKinds[0], i, {0}, 3000);
  checkReduction(kKinds[1], i, {0}, 3000);
  // The split's arrival counters reset for the next launch: the same bits every time.
  auto f = tg::jit([](const Tensor& x) { return tg::sum(x * 1.5f, {0}); });
  Tensor x = big.to(Device::CUDA), y = (big * 2.0f).to(Device::CUDA);
  const std::vector<float> first = f(x).to_vector<float>();
  std::vector<Tensor> results;
  for (int n = 0; n < 6; ++n) results.push_back(f(n % 2 ? y : x));
  for (int n = 0; n < 6; n += 2) EXPECT_EQ(results[n].to_vector<float>(), first) << "launch " << n;
}

TEST(GpuReductions, RepeatedLaunchesGiveTheSameBits) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  auto f = tg::jit([](const Tensor& x) { return tg::sum(x * 1.5f); });
  Tensor x = tg::randn({int64_t{1} << 22}, DType::F32, 31, Device::CUDA);
  Tensor y = tg::randn({int64_t{1} << 22}, DType::F32, 32, Device::CUDA);
  const float first = f(x).item<float>();
  std::vector<Tensor> results;
  for (int i = 0; i < 6; ++i) results.push_back(f(i % 2 ? y : x));  // no waits in between
  for (int i = 0; i < 6; i += 2) EXPECT_EQ(results[i].item<float>(), first) << "launch " << i;
  EXPECT_NE(results[1].item<float>(), first);
  compare(results[1], tg::sum(y.to(Device::CPU) * 1.5f),
          Tolerance{.scaled = accumulationRel(int64_t{1} << 22), .rule = "f32 sum of 4M"},
          absValues(tg::sum(tg::abs(y.to(Device::CPU) * 1.5f))));
}

// Issue 13, bug 2: a reduction of a value that canonicalization folds to a splat constant
// (tanh of a constant; through a broadcast or transpose) reads the constant as a literal, with
// no input buffer. The GPU must give the CPU's value.
TEST(GpuReductions, ReductionsOfFoldedConstants) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  auto f = tg::jit([](const Tensor& x) {
    Tensor c = tg::tanh(tg::full({133, 1}, 1.0, DType::F32));
    Tensor t = tg::transpose(tg::broadcast_to(tg::full({7}, -0.75, DType::F32), {5, 7}), 0, 1);
    return std::make_tuple(tg::mean(c, {0}, true), tg::sum(t), tg::max(t, {1}) + x);
  });
  for (Device d : {Device::CPU, Device::CUDA}) {
    Tensor x = tg::randn({7}, DType::F32, 41, d);
    auto [mean, sum, max] = f(x);
    SCOPED_TRACE(tg::device_name(d));
    EXPECT_NEAR(mean.item<float>(), std::tanh(1.0), 1e-6);
    EXPECT_FLOAT_EQ(sum.item<float>(), -0.75f * 35);
    compare(max, x.to(Device::CPU) - 0.75f, Tolerance{});
  }
  // Long ones: a block per output split over blocks, f32 and i32.
  auto g = tg::jit([](const Tensor& x) {
    return std::make_pair(tg::sum(tg::full({1 << 20}, 0.5, DType::F32)) + x,
                          tg::sum(tg::full({100000}, 3.0, DType::I32)));
  });
  Tensor x = tg::randn({}, DType::F32, 43, Device::CUDA);
  auto [s, i] = g(x);
  EXPECT_EQ(s.item<float>(), 0.5f * (1 << 20) + x.item<float>());  // every partial sum is exact
  EXPECT_EQ(i.item<int32_t>(), 300000);
}

}  // namespace
