//===- bench_attention.cpp - Fused attention (flash kernel) on the GPU ----===//
//
// Part of tg_bench (BenchCase.h). softmax(modify(q @ k^T / sqrt(D))) @ v, bf16, forward, as a
// user writes it with tg ops, jitted with JitOptions::fuse_attention (the flash-attention
// kernel, templates/attention_flash.cuh) and without it (`apart`: the scores through HBM),
// for head dims 64 and 128 and sequence lengths 4096 to 16384 with about 32 x 4096 query rows
// a call (heads = 32 * 4096 / S). Modifiers: `full` (none), `causal` (where(key <= row, s,
// -inf)), `softcap` (tanh(s / 20) * 20; `softcap_fast` the same with tg::Precision::Fast),
// `alibi` (s - slope_h (row - key), causal).
// Names: attention/bf16/d<D>/s<S>/<modifier>/<variant>. Counters: median_us and tflops
// (4 H S^2 D for full attention, half for causal ones: the FLOPs a kernel that skips masked
// blocks does, as FlashAttention and compare_torch.py count them). compare_torch.py times the
// same cases with PyTorch's SDPA backends and FlexAttention.
// Decode: attention_decode/bf16/b<B>/kv<S>/<variant>: one new token of B sequences, 32 query
// heads on 8 key/value heads (grouped-query: the 4 query heads of a key/value head folded into
// its rows, as the decoder writes it) against a cache of S keys, head dim 128: fused (the
// split-key kernel and its combine, templates/attention_split.cuh), apart, and `copy`: a
// device-to-device copy of half the cache's bytes (so the same bytes cross HBM), the ceiling a
// transfer of that size reaches; counters median_us, GB/s of the cache (keys and values read
// once) and roofline_pct of the copy bandwidth measured in the same run (1 GiB copies).
//
//===----------------------------------------------------------------------===//
#include "BenchCase.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace {

using tg::DType;
using tg::Tensor;

// softcap_fast: the soft cap with tg::Precision::Fast (tanh.approx instead of CUDA's tanhf).
enum class Modifier { full, causal, softcap, softcap_fast, alibi };
const char* nameOf(Modifier m) {
  return m == Modifier::full      ? "full"
         : m == Modifier::causal  ? "causal"
         : m == Modifier::softcap ? "softcap"
         : m == Modifier::softcap_fast ? "softcap_fast"
                                  : "alibi";
}

Tensor attention(Modifier mod, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& slopes) {
  const int64_t M = q.shape()[1], S = k.shape()[1], D = q.shape()[2];
  Tensor s = tg::cast(tg::matmul(q, tg::transpose(k, 1, 2)), DType::F32) * (1.0 / std::sqrt(double(D)));
  Tensor row = tg::iota({1, M, 1}, 1, DType::I32, q.device()), key = tg::iota({1, 1, S}, 2, DType::I32, q.device());
  if (mod == Modifier::softcap || mod == Modifier::softcap_fast) s = tg::tanh(s * (1.0 / 20.0)) * 20.0;
  if (mod == Modifier::alibi) s = s - slopes * tg::cast(row - key, DType::F32);
  if (mod == Modifier::causal || mod == Modifier::alibi) s = tg::where(tg::le(key, row), s, -INFINITY);
  return tg::matmul(tg::cast(tg::softmax(s, -1), v.dtype()), v);
}

void BM_Attention(benchmark::State& state, Modifier mod, int64_t D, int64_t S, bool fused) {
  if (!tgbench::haveGpu(state)) return;
  const int64_t H = 32 * 4096 / S;
  auto f = tg::jit([mod](const Tensor& q, const Tensor& k, const Tensor& v,
                         const Tensor& slopes) { return attention(mod, q, k, v, slopes); },
                   tg::JitOptions{.fuse_attention = fused,
                                  .precision = mod == Modifier::softcap_fast ? tg::Precision::Fast : tg::Precision::Auto});
  Tensor q = tg::randn({H, S, D}, DType::BF16, 1), k = tg::randn({H, S, D}, DType::BF16, 2);
  Tensor v = tg::randn({H, S, D}, DType::BF16, 3);
  std::vector<float> sl;
  for (int64_t h = 0; h < H; ++h) sl.push_back(std::ldexp(1.0f, -static_cast<int>(h % 8) - 1));
  Tensor slopes = tg::from_vector(sl, {H, 1, 1}).to(tg::Device::CUDA);
  const bool causal = mod == Modifier::causal || mod == Modifier::alibi;
  const double flops = 4.0 * double(H) * double(S) * double(S) * double(D) * (causal ? 0.5 : 1.0);
  for (auto _ : state) {
    const double us = tgbench::medianUs([&](int) { benchmark::DoNotOptimize(f(q, k, v, slopes)); });
    tgbench::report(state, us, 0);
    state.counters["tflops"] = flops / (us * 1e-6) / 1e12;
  }
}

constexpr int64_t kDecodeKvHeads = 8, kDecodeGroup = 4, kDecodeD = 128;

double decodeCacheBytes(int64_t B, int64_t S) { return 2.0 * double(B * kDecodeKvHeads) * double(S) * double(kDecodeD) * 2.0; }

// Calls rotate over caches of 256 MB or more in all, so that they come from HBM, not from the
// 50 MB L2 (as a model's cache does between its layers' weights).
int decodeSets(double bytes) { return static_cast<int>(std::clamp(std::ceil(256e6 / bytes), 1.0, 16.0)); }

void BM_DecodeCopy(benchmark::State& state, int64_t B, int64_t S) {
  if (!tgbench::haveGpu(state)) return;
  tg::rt::Gpu& gpu = *tg::rt::Gpu::get();
  const double bytes = decodeCacheBytes(B, S);
  const size_t half = static_cast<size_t>(bytes / 2);
  const int sets = decodeSets(bytes);
  std::vector<std::shared_ptr<tg::rt::DeviceBuffer>> src, dst;
  for (int i = 0; i < sets; ++i) {
    src.push_back(gpu.allocate(half));
    dst.push_back(gpu.allocate(half));
    gpu.fill(src.back()->ptr(), 0x3f, 1, half);
  }
  for (auto _ : state)
    tgbench::report(state, tgbench::medianUs([&](int i) { gpu.copyOnDevice(dst[i % sets]->ptr(), src[i % sets]->ptr(), half); }),
                    bytes);
}

void BM_Decode(benchmark::State& state, int64_t B, int64_t S, bool fused) {
  if (!tgbench::haveGpu(state)) return;
  constexpr int64_t kKvHeads = kDecodeKvHeads, kGroup = kDecodeGroup, D = kDecodeD;
  auto f = tg::jit([](const Tensor& q, const Tensor& k, const Tensor& v) {
                     Tensor s = tg::cast(tg::matmul(q, tg::transpose(k, 1, 2)), DType::F32) * (1.0 / std::sqrt(double(D)));
                     return tg::matmul(tg::cast(tg::softmax(s, -1), v.dtype()), v);
                   },
                   tg::JitOptions{.fuse_attention = fused});
  const double bytes = decodeCacheBytes(B, S);
  const int sets = decodeSets(bytes);
  Tensor q = tg::randn({B * kKvHeads, kGroup, D}, DType::BF16, 1);
  std::vector<Tensor> k, v;
  for (int i = 0; i < sets; ++i) {
    k.push_back(tg::randn({B * kKvHeads, S, D}, DType::BF16, 2 + 2 * i));
    v.push_back(tg::randn({B * kKvHeads, S, D}, DType::BF16, 3 + 2 * i));
  }
  for (auto _ : state)
    tgbench::report(state, tgbench::medianUs([&](int i) { benchmark::DoNotOptimize(f(q, k[i % sets], v[i % sets])); }),
                    bytes);
}

const bool registered = [] {
  for (int64_t B : {1, 4, 16})
    for (int64_t S : {4096, 16384, 32768}) {
      const std::string copyName = "attention_decode/bf16/b" + std::to_string(B) + "/kv" + std::to_string(S) + "/copy";
      benchmark::RegisterBenchmark(copyName.c_str(), BM_DecodeCopy, B, S)
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMicrosecond);
      for (bool fused : {true, false}) {
        const std::string name = "attention_decode/bf16/b" + std::to_string(B) + "/kv" + std::to_string(S) +
                                 (fused ? "/fused" : "/apart");
        benchmark::RegisterBenchmark(name.c_str(), BM_Decode, B, S, fused)
            ->UseManualTime()
            ->Iterations(1)
            ->Unit(benchmark::kMicrosecond);
      }
    }
  for (int64_t D : {128, 64})
    for (int64_t S : {4096, 8192, 16384})
      for (Modifier m : {Modifier::full, Modifier::causal, Modifier::softcap, Modifier::softcap_fast, Modifier::alibi}) {
        if ((m == Modifier::softcap || m == Modifier::softcap_fast || m == Modifier::alibi) && (D != 128 || S != 8192)) continue;
        for (bool fused : {true, false}) {
          if (!fused && S > 4096) continue;  // the [H, S, S] scores: 2 GiB at 4096, more beyond
          const std::string name = "attention/bf16/d" + std::to_string(D) + "/s" + std::to_string(S) + "/" +
                                   nameOf(m) + (fused ? "/fused" : "/apart");
          benchmark::RegisterBenchmark(name.c_str(), BM_Attention, m, D, S, fused)
              ->UseManualTime()
              ->Iterations(1)
              ->Unit(benchmark::kMicrosecond);
        }
      }
  return true;
}();

}  // namespace
