//===- GpuFlashAttentionTest.cpp - The flash-attention kernel on the GPU ---===//
//
// softmax(modify(q @ k^T * scale)) @ v with many query rows (prefill; tg-fuse-attention,
// templates/attention_flash.cuh) run through the jit on the H200, one kernel, against a
// float64 reference computed here from the same (rounded) inputs. Cases: causal and
// unmasked, head dims 64, 128 and 256, bf16 and f16, rows and keys that are not multiples of
// the 128-row tile or the key block, grouped-query attention folded into the rows of a
// key/value head read from a layer's window of a cache (the decoder's form, with a device
// position), rows whose keys are all masked (0, not NaN), large-magnitude scores, and two
// score modifiers: a soft cap (tanh(s / c) * c) and an ALiBi bias from per-head slopes.
// Decode-sized attention (a few rows, many keys: the split-key kernel and its combine,
// templates/attention_split.cuh) against the same reference: long caches, chunks skipped past
// a device position, fully masked rows, head dims 64 to 256, modifiers, large scores.
// Random inputs from fixed seeds; skips without a GPU.
//
//===----------------------------------------------------------------------===//
#include "GpuCompare.h"
#include "graphs.h"

#include <tg/tg.h>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace {

using tg::Device;
using tg::DType;
using tg::Tensor;

enum class Mask { none, causal, causalShifted };  // shifted: key <= row - 5 (rows 0..4 see nothing)
enum class Modifier { none, softCap, alibi };

struct Case {
  const char* name;
  int64_t heads, rows, keys, dim;
  DType dtype;
  Mask mask = Mask::none;
  Modifier modifier = Modifier::none;
  double qScale = 1.0;  // large-magnitude scores
  // The decoder's form: `group` query heads per key/value head folded into the rows, keys
  // and values read from layer 1 of a 2-layer cache, the mask against a device position.
  int64_t group = 0;
  int32_t pos = 0;
};

constexpr double kSoftCap = 20.0;

/// The slope of head h for ALiBi (any fixed values: the kernel reads them as an input).
double slopeOf(int64_t h) { return std::ldexp(1.0, -static_cast<int>(h % 8) - 1); }

/// The row index a query row `m` of batch `b` masks with (the decoder's: pos + m % T).
int64_t queryPosition(const Case& c, int64_t m) { return c.group ? c.pos + m % (c.rows / c.group) : m; }

Tensor attention(const Case& c, const Tensor& q, const Tensor& kc, const Tensor& vc, const Tensor& slopes,
                 const Tensor& pos) {
  const int64_t S = c.keys, M = c.rows, H = c.heads;
  const Device dev = q.device();
  Tensor k = c.group ? tg::reshape(tg::slice(kc, 0, 1, 2), {H, S, c.dim}) : kc;
  Tensor v = c.group ? tg::reshape(tg::slice(vc, 0, 1, 2), {H, S, c.dim}) : vc;
  Tensor s = tg::cast(tg::matmul(q, tg::transpose(k, 1, 2)), DType::F32) * (1.0 / std::sqrt(double(c.dim)));
  Tensor qp = c.group ? tg::reshape(tg::iota({c.group, M / c.group}, 1, DType::I32, dev), {1, M, 1}) + pos
                      : tg::iota({1, M, 1}, 1, DType::I32, dev);
  Tensor kp = tg::iota({1, 1, S}, 2, DType::I32, dev);
  if (c.modifier == Modifier::softCap) s = tg::tanh(s * (1.0 / kSoftCap)) * kSoftCap;
  if (c.modifier == Modifier::alibi) s = s - slopes * tg::cast(qp - kp, DType::F32);
  if (c.mask == Mask::causal) s = tg::where(tg::le(kp, qp), s, -INFINITY);
  if (c.mask == Mask::causalShifted) s = tg::where(tg::le(kp + 5, qp), s, -INFINITY);
  return tg::matmul(tg::cast(tg::softmax(s, -1), v.dtype()), v);
}

/// The same in float64 from the inputs' values: q [H, M, D], k and v [H, S, D].
std::vector<double> reference(const Case& c, const std::vector<float>& q, const std::vector<float>& k,
                              const std::vector<float>& v) {
  const int64_t H = c.heads, M = c.rows, S = c.keys, D = c.dim;
  std::vector<double> out(static_cast<size_t>(H * M * D), 0.0), s(static_cast<size_t>(S));
  const double scale = 1.0 / std::sqrt(double(D));
  for (int64_t h = 0; h < H; ++h)
    for (int64_t m = 0; m < M; ++m) {
      double mx = -std::numeric_limits<double>::infinity();
      const int64_t qp = queryPosition(c, m);
      for (int64_t j = 0; j < S; ++j) {
        double acc = 0;
        for (int64_t d = 0; d < D; ++d) acc += double(q[(h * M + m) * D + d]) * double(k[(h * S + j) * D + d]);
        double x = acc * scale;
        if (c.modifier == Modifier::softCap) x = std::tanh(x / kSoftCap) * kSoftCap;
        if (c.modifier == Modifier::alibi) x -= slopeOf(h) * double(qp - j);
        const bool visible = c.mask == Mask::none || (c.mask == Mask::causal ? j <= qp : j + 5 <= qp);
        s[j] = visible ? x : -std::numeric_limits<double>::infinity();
        mx = std::max(mx, s[j]);
      }
      if (mx == -std::numeric_limits<double>::infinity()) continue;  // every key masked: 0
      double sum = 0;
      for (int64_t j = 0; j < S; ++j) sum += s[j] = std::exp(s[j] - mx);
      for (int64_t j = 0; j < S; ++j)
        for (int64_t d = 0; d < D; ++d) out[(h * M + m) * D + d] += s[j] / sum * double(v[(h * S + j) * D + d]);
    }
  return out;
}

std::vector<Case> cases() {
  return {
      {"causal_d128_bf16_ragged", 3, 1000, 1000, 128, DType::BF16, Mask::causal},
      {"unmasked_d64_f16_ragged", 2, 300, 777, 64, DType::F16},
      {"unmasked_d256_bf16", 2, 256, 320, 256, DType::BF16},
      {"gqa_cache_window_device_position", 2, 4 * 130, 640, 128, DType::BF16, Mask::causal, Modifier::none, 1.0, 4, 300},
      {"fully_masked_rows_give_zero", 2, 200, 150, 128, DType::BF16, Mask::causalShifted},
      {"large_magnitude_scores", 2, 256, 500, 128, DType::BF16, Mask::causal, Modifier::none, 12.0},
      {"soft_cap", 2, 384, 384, 128, DType::BF16, Mask::causal, Modifier::softCap, 6.0},
      {"alibi", 4, 256, 300, 64, DType::BF16, Mask::causal, Modifier::alibi},
  };
}

/// Runs `c` fused (`kernels` kernels expected) and compares it with the float64 reference.
void check(const Case& c, unsigned kernels) {
  {
    SCOPED_TRACE(c.name);
    const int64_t H = c.heads, M = c.rows, S = c.keys, D = c.dim;
    Tensor q = tg::randn({H, M, D}, DType::F32, 21, Device::CPU);
    if (c.qScale != 1.0) q = q * c.qScale;
    q = tg::cast(q, c.dtype);
    const std::vector<int64_t> cacheShape = c.group ? std::vector<int64_t>{2, H, S, D} : std::vector<int64_t>{H, S, D};
    Tensor kc = tg::randn(cacheShape, c.dtype, 22, Device::CPU), vc = tg::randn(cacheShape, c.dtype, 23, Device::CPU);
    std::vector<float> slopes;
    for (int64_t h = 0; h < H; ++h) slopes.push_back(static_cast<float>(slopeOf(h)));
    Tensor sl = tg::from_vector(slopes, {H, 1, 1});
    Tensor pos = tg::from_vector(std::vector<int32_t>{c.pos}, {});
    auto fn = [c](const Tensor& q, const Tensor& kc, const Tensor& vc, const Tensor& sl, const Tensor& pos) {
      return attention(c, q, kc, vc, sl, pos);
    };
    auto fused = tg::jit(fn, tg::JitOptions{.fuse_attention = true});
    std::vector<Tensor> dev = tggpu::toDevice({q, kc, vc, sl, pos}, Device::CUDA);
    Tensor got = fused(dev[0], dev[1], dev[2], dev[3], dev[4]), again = fused(dev[0], dev[1], dev[2], dev[3], dev[4]);
    tg::JitReport r = fused.report();
    ASSERT_EQ(r.graphs.size(), 1u);
    EXPECT_EQ(r.graphs[0].kernels, kernels) << r;
    // No [M, S] scores in memory: the run's device memory (intermediates, the split kernel's
    // scratch, the result) stays below what the scores alone would take in f32, where that is
    // more than rounding (1 MiB).
    const size_t scoreBytes = static_cast<size_t>(H * M * S * 4);
    EXPECT_GT(r.graphs[0].peakDeviceBytes, 0u) << r;
    if (scoreBytes >= (size_t{1} << 20)) {
      EXPECT_LT(r.graphs[0].peakDeviceBytes, scoreBytes) << r;
    }

    auto layer = [&](const Tensor& t) {
      std::vector<float> all = tg::cast(t, DType::F32).to_vector<float>();
      if (!c.group) return all;
      return std::vector<float>(all.begin() + H * S * D, all.end());  // layer 1
    };
    std::vector<double> ref = reference(c, tg::cast(q, DType::F32).to_vector<float>(), layer(kc), layer(vc));
    std::vector<float> refF(ref.begin(), ref.end());
    // |o - ref| <= 2^-(p+1) |ref| (the result's rounding) + 2^-(p+1) max |v| (each
    // unnormalised p rounded to the operand type before p @ v; the p sum to 1), doubled for
    // the f32 scores, the approximate exp and the summation order.
    const double eps = std::ldexp(1.0, -tggpu::mantissaBits(c.dtype) - 1);
    tggpu::Tolerance tol;
    tol.rel = 2 * eps;
    tol.abs = 2 * eps * tggpu::maxAbs(vc) + 1e-5;
    tol.rule = "result rounding + p rounding, against float64";
    EXPECT_TRUE(tggpu::compare(tg::cast(got, DType::F32), tg::from_vector(refF, {H, M, D}), tol));
    std::string why;
    EXPECT_TRUE(tggpu::sameBits(got, again, why)) << why;  // the replay
    if (c.mask == Mask::causalShifted) {  // rows 0..4 see no key: exactly 0
      std::vector<float> g = tg::cast(got, DType::F32).to_vector<float>();
      for (int64_t d = 0; d < 5 * D; ++d) ASSERT_EQ(g[static_cast<size_t>(d)], 0.0f) << d;
    }
  }
}

TEST(GpuFlashAttention, PrefillAttentionIsOneKernelAndMatchesAFloat64Reference) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  for (const Case& c : cases()) check(c, 1);
}

// Flash-decoding (templates/attention_split.cuh): a few rows against many keys, the keys
// split into chunks whose partials a second kernel combines. Chunks past a device position
// or a causal mask are not loaded; rows without a visible key give 0.
TEST(GpuFlashAttention, DecodeSizedAttentionIsSplitOverTheKeysAndMatchesAFloat64Reference) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  const Case decode[] = {
      {"decode_gqa_cache_window_device_position", 8, 4, 20000, 128, DType::BF16, Mask::causal, Modifier::none, 1.0, 4, 15000},
      {"decode_gqa_two_tokens_position_near_the_start", 2, 4 * 2, 9000, 128, DType::BF16, Mask::causal, Modifier::none, 1.0, 4, 3},
      {"decode_one_row_32768_keys_f16", 2, 1, 32768, 128, DType::F16},
      {"decode_fully_masked_rows_give_zero", 2, 8, 3000, 64, DType::BF16, Mask::causalShifted},
      {"decode_d256_soft_cap_large_scores", 2, 4, 5000, 256, DType::BF16, Mask::none, Modifier::softCap, 6.0},
      {"decode_alibi_large_magnitude", 4, 2, 4097, 64, DType::BF16, Mask::causal, Modifier::alibi, 12.0},
      {"decode_ragged_keys_one_chunk", 3, 3, 37, 128, DType::BF16},
  };
  for (const Case& c : decode) check(c, 2);
}

/// q, k, v [B * H, S, hd] (float) from a projection's output qkv [B, S, 3 H hd], as
/// tg_graphs::causal_self_attention splits it.
void splitHeads(const std::vector<float>& qkv, int64_t B, int64_t S, int64_t H, int64_t hd, std::vector<float> (&out)[3]) {
  for (int i = 0; i < 3; ++i) out[i].assign(static_cast<size_t>(B * H * S * hd), 0.0f);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t s = 0; s < S; ++s)
      for (int i = 0; i < 3; ++i)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t d = 0; d < hd; ++d)
            out[i][static_cast<size_t>(((b * H + h) * S + s) * hd + d)] =
                qkv[static_cast<size_t>(((b * S + s) * 3 + i) * H * hd + h * hd + d)];
}

/// Runs tg_graphs::causal_self_attention of a random qkv [B, S, 3 H hd] through `fn` and
/// compares it with the float64 reference; returns the report.
template <typename Fn>
tg::JitReport checkSelfAttention(Fn& fn, int64_t B, int64_t S, int64_t H, int64_t hd, uint64_t seed) {
  SCOPED_TRACE("B " + std::to_string(B) + ", S " + std::to_string(S) + ", heads " + std::to_string(H) + ", hd " +
               std::to_string(hd));
  Tensor qkv = tg::randn({B, S, 3 * H * hd}, DType::BF16, seed, Device::CUDA);
  Tensor got = fn(qkv);
  std::vector<float> parts[3];
  splitHeads(tg::cast(qkv, DType::F32).to_vector<float>(), B, S, H, hd, parts);
  const Case c{"self_attention", B * H, S, S, hd, DType::BF16, Mask::causal};
  const std::vector<double> ref = reference(c, parts[0], parts[1], parts[2]);
  std::vector<float> refF(static_cast<size_t>(B * S * H * hd));  // [B, H, S, hd] -> [B, S, H hd]
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t s = 0; s < S; ++s)
        for (int64_t d = 0; d < hd; ++d)
          refF[static_cast<size_t>((b * S + s) * H * hd + h * hd + d)] =
              static_cast<float>(ref[static_cast<size_t>(((b * H + h) * S + s) * hd + d)]);
  const double eps = std::ldexp(1.0, -tggpu::mantissaBits(DType::BF16) - 1);
  tggpu::Tolerance tol;
  tol.rel = 2 * eps;
  tol.abs = 2 * eps * tggpu::maxAbs(qkv) + 1e-5;
  tol.rule = "result rounding + p rounding, against float64";
  EXPECT_TRUE(tggpu::compare(tg::cast(got, DType::F32), tg::from_vector(refF, {B, S, H * hd}), tol));
  return fn.report();
}

// Attention as a transformer block writes it: q, k and v split into heads from one
// projection's output (a reshape, slices, transposes). The keys and values are copied into
// rows (two copy kernels), q is read through its layout in the flash kernel, and the heads
// are merged back by a copy of the result: 4 kernels, no scores in memory.
TEST(GpuFlashAttention, HeadsSplitFromAProjectionAreCopiedIntoRowsAndMatchAFloat64Reference) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  for (auto [B, S, H, hd] : {std::array<int64_t, 4>{2, 333, 4, 64}, {1, 1000, 2, 128}, {3, 129, 2, 64}}) {
    auto fn = tg::jit([H](const Tensor& qkv) { return tg_graphs::causal_self_attention(qkv, H); });
    const tg::JitReport r = checkSelfAttention(fn, B, S, H, hd, static_cast<uint64_t>(B * S + hd));
    ASSERT_EQ(r.graphs.size(), 1u);
    EXPECT_EQ(r.graphs[0].kernels, 4u) << r;
  }
}

// The same compiled once for batch in [1, 8] x seq in [1, 2048] (issue 18): one flash kernel
// whose batch, rows and keys are size arguments, its keys' and values' maps encoded at each
// size, q read through the heads split with run-time extents. Right at every size against
// float64 (primes, 1, sizes below and above a tile of rows and a block of keys), with one
// compiled graph for the sizes above 1 (a size of 1 has its own).
TEST(GpuFlashAttention, HeadsSplitOverDynamicBatchAndSeqCompileOnceAndMatchAFloat64Reference) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  const int64_t H = 4, hd = 64;
  tg::JitOptions options;
  options.dynamic = {{0, 0, tg::Dim("batch", 1, 8)}, {0, 1, tg::Dim("seq", 1, 2048)}};
  auto fn = tg::jit([](const Tensor& qkv) { return tg_graphs::causal_self_attention(qkv, H); }, options);
  uint64_t seed = 500;
  for (auto [B, S] : {std::array<int64_t, 2>{2, 333}, {3, 17}, {1, 1000}, {8, 2048}, {5, 191}, {2, 193}, {7, 2},
                      {2, 129}, {4, 1}, {3, 1531}})
    checkSelfAttention(fn, B, S, H, hd, seed++);
  const tg::JitReport r = fn.report();
  size_t ranged = 0;
  for (const tg::JitReport::Graph& g : r.graphs)  // both dims over their range ("batch in [2, 8], ...")
    ranged += !g.symbols.empty() && g.symbols.find(" = ") == std::string::npos ? 1 : 0;
  EXPECT_EQ(ranged, 1u) << r;
  EXPECT_LE(r.graphs.size(), 3u) << r;  // the range, and batch = 1 / seq = 1 held fixed
}

}  // namespace
