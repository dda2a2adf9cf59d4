//===- GpuAttentionTest.cpp - The attention kernel on the GPU -------------===//
//
// softmax(modify(q @ k^T)) @ v of decode size (tg-fuse-attention with JitOptions::decode_attention:
// the split-key kernel and its combine, templates/attention_split.cuh, where it takes the
// problem, else the cluster kernel, templates/attention.cuh) run through the jit on the GPU
// against the same function on the CPU with every input widened to f32 (so the reference
// keeps its scores and probabilities in f32) and against the GPU's unfused kernels
// (JitOptions::fuse_attention = false). Cases: grouped-query
// decode (4 query heads per key/value head, a layer's window of a cache, a causal mask from
// iotas and a device position), one and 16 query rows, key counts that are not multiples of
// the blocks' shares (a cluster whose last block has fewer keys, or none), head dims 64, 96
// and 128 with a value dim that differs, bf16, f16 and f32, head dims that only element loads
// can read, and a rotary-embedded q that the kernel computes as it reads it. Random inputs
// from fixed seeds; skips without a GPU.
//
//===----------------------------------------------------------------------===//
#include "GpuCompare.h"
#include "Rotary.h"

#include <tg/tg.h>

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

using tg::Device;
using tg::DType;
using tg::Tensor;

struct Case {
  const char* name;
  int64_t heads, rows, keys, dim, valueDim;
  DType dtype;
  int64_t layers = 2, layer = 1;  // the cache holds `layers`; the step reads `layer`
  int32_t pos = -1;               // -1: no mask; else keys up to pos + row are visible
  bool rope = false;              // q rotary-embedded first (computed by the attention kernel)
  unsigned kernels = 2;           // 2: the split-key kernel and its combine; 1: the cluster kernel
};

/// softmax(where(visible, q @ k^T * scale, -inf)) @ v for one layer of a [layers, heads, keys,
/// dim] cache, in the inputs' dtype (p rounded to it before p @ v).
Tensor attention(const Case& c, const Tensor& q0, const Tensor& kc, const Tensor& vc, const Tensor& pos) {
  const int64_t S = c.keys, L = c.layer;
  const Tensor q = c.rope ? tgtest::rotateHalf(q0) : q0;
  Tensor k = tg::reshape(tg::slice(kc, 0, L, L + 1), {c.heads, S, c.dim});
  Tensor v = tg::reshape(tg::slice(vc, 0, L, L + 1), {c.heads, S, c.valueDim});
  Tensor s = tg::cast(tg::matmul(q, tg::transpose(k, 1, 2)), DType::F32) * (1.0 / std::sqrt(double(c.dim)));
  if (c.pos >= 0) {
    Tensor queryPos = tg::reshape(tg::iota({c.rows}, 0, DType::I32, q.device()), {1, c.rows, 1}) + pos;
    s = tg::where(tg::le(tg::iota({1, 1, S}, 2, DType::I32, q.device()), queryPos), s, -INFINITY);
  }
  return tg::matmul(tg::cast(tg::softmax(s, -1), v.dtype()), v);
}

std::vector<Case> cases() {
  return {
      {"gqa_decode_bf16", 4, 4, 640, 128, 128, DType::BF16, 2, 1, 300},
      {"gqa_decode_rotary_q_bf16", 4, 4, 640, 128, 128, DType::BF16, 2, 1, 639, true},
      {"one_row_f32", 2, 1, 100, 64, 64, DType::F32},
      {"sixteen_rows_f16_odd_keys", 3, 16, 1000, 96, 96, DType::F16, 1, 0, 700, false, 1},
      {"value_dim_differs_few_keys", 2, 5, 77, 64, 32, DType::BF16, 2, 1, -1, false, 1},
      {"element_loads_dim60", 2, 4, 200, 60, 60, DType::BF16, 2, 1, 150, false, 1},
      {"long_cache_position_mask_bf16", 8, 4, 20000, 128, 128, DType::BF16, 2, 1, 12345},
      {"eight_rows_d64_f16", 3, 8, 3001, 64, 64, DType::F16, 1, 0, 2999},
      {"d256_bf16", 2, 4, 1500, 256, 256, DType::BF16, 1, 0, 1400},
      {"short_cache", 1, 8, 9, 128, 128, DType::BF16, 1, 0, 4},
  };
}

TEST(GpuAttention, DecodeSizedAttentionIsSplitOrOneKernelAndMatchesAnF32Reference) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const int64_t cacheKeys = c.keys;
    Tensor q = tg::randn({c.heads, c.rows, c.dim}, c.dtype, 11, Device::CPU);
    Tensor kc = tg::randn({c.layers, c.heads, cacheKeys, c.dim}, c.dtype, 12, Device::CPU);
    Tensor vc = tg::randn({c.layers, c.heads, cacheKeys, c.valueDim}, c.dtype, 13, Device::CPU);
    Tensor pos = tg::from_vector(std::vector<int32_t>{std::max(c.pos, 0)}, {}).to(Device::CPU);
    auto fn = [c](const Tensor& q, const Tensor& kc, const Tensor& vc, const Tensor& pos) {
      return attention(c, q, kc, vc, pos);
    };
    // The reference: f32 inputs on the CPU, scores and probabilities in f32 (the kernel's
    // own precision; only the bf16/f16 rounding of p and of the result differ).
    Tensor ref = fn(tg::cast(q, DType::F32), tg::cast(kc, DType::F32), tg::cast(vc, DType::F32), pos);
    auto fused = tg::jit(fn, tg::JitOptions{.decode_attention = true});
    auto unfused = tg::jit(fn, tg::JitOptions{.fuse_attention = false});  // the scores, the softmax and p @ v apart
    Tensor gq = q.to(Device::CUDA), gk = kc.to(Device::CUDA), gv = vc.to(Device::CUDA), gp = pos.to(Device::CUDA);
    Tensor got = fused(gq, gk, gv, gp), again = fused(gq, gk, gv, gp), apart = unfused(gq, gk, gv, gp);
    tg::JitReport r = fused.report();
    ASSERT_EQ(r.graphs.size(), 1u);
    EXPECT_EQ(r.graphs[0].kernels, c.kernels) << r;
    EXPECT_GT(unfused.report().graphs[0].kernels, 1u);
    // |o - ref| <= 2^-(p+1) |ref| for the result's rounding, plus p's rounding: each p_j is
    // within 2^-(p+1) of its value, so sum_j |dp_j v_j| <= 2^-(p+1) max |v| (the p sum to 1).
    // In f32 the approximate exp and the summation order (about 1e-6 relative, over up to
    // 1000 keys) take its place; the unfused f32 p @ v runs as TF32 (2^-11).
    const double vmax = tggpu::maxAbs(vc);
    auto tolerance = [&](double eps, const char* rule) {
      tggpu::Tolerance tol;
      tol.rel = 2 * eps;
      tol.abs = 2 * eps * vmax + 1e-5;
      tol.rule = rule;
      return tol;
    };
    const double eps = c.dtype == DType::F32 ? 1e-5 : std::ldexp(1.0, -tggpu::mantissaBits(c.dtype) - 1);
    EXPECT_TRUE(tggpu::compare(tg::cast(got, DType::F32), ref, tolerance(eps, "result rounding + p rounding")));
    // The replay (a CUDA graph) gives the same bits; the unfused kernels agree within their bound.
    std::string why;
    EXPECT_TRUE(tggpu::sameBits(got, again, why)) << why;
    EXPECT_TRUE(tggpu::compare(tg::cast(apart, DType::F32), ref, tolerance(c.dtype == DType::F32 ? std::ldexp(1.0, -11) : eps, "unfused")));
  }
}

}  // namespace
