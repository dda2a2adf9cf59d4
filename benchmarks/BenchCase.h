//===- BenchCase.h - What tg_bench's cases share: timing a jitted graph ----===//
//
// Each case times 30 calls after warm-up (Timing.h) and reports the median as the counter
// `median_us`, with `gbps` (bytes each call must move: inputs read once, outputs written once)
// and `roofline_pct` against the device copy bandwidth, measured once per run on first use
// (the case copy/roofline reports it).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Timing.h"

#include "tg/Runtime/Gpu.h"

#include <benchmark/benchmark.h>

#include <type_traits>
#include <vector>

namespace tgbench {

/// The device copy bandwidth in GB/s (a 1 GiB device-to-device copy: 2 GiB moved), measured
/// on the first call; `us` receives the copy's median time.
inline double copyGbps(double* us = nullptr) {
  static double medianCopyUs = [] {
    tg::rt::Gpu& gpu = *tg::rt::Gpu::get();
    const size_t bytes = size_t(1) << 30;
    auto src = gpu.allocate(bytes), dst = gpu.allocate(bytes);
    gpu.fill(src->ptr(), 0x3f, 1, bytes);
    return medianUs([&](int) { gpu.copyOnDevice(dst->ptr(), src->ptr(), bytes); });
  }();
  if (us) *us = medianCopyUs;
  return 2.0 * double(size_t(1) << 30) / (medianCopyUs * 1e-6) / 1e9;
}

inline void report(benchmark::State& state, double us, double bytes) {
  state.SetIterationTime(us * 1e-6);
  state.counters["median_us"] = us;
  if (bytes > 0) {
    double gbps = bytes / (us * 1e-6) / 1e9;
    state.counters["gbps"] = gbps;
    state.counters["roofline_pct"] = 100.0 * gbps / copyGbps();
  }
}

inline bool haveGpu(benchmark::State& state) {
  if (tg::cuda_available()) return true;
  state.SkipWithError("no GPU");
  return false;
}

/// Times `fn` (of 1 to 3 tensors) jitted with `options` on `sets` rotating sets of fresh
/// random inputs of the given specs.
template <typename Fn>
void timeGraph(benchmark::State& state, Fn fn, std::vector<tg::TensorSpec> specs, tg::JitOptions options,
               double bytes, int sets = 1) {
  if (!haveGpu(state)) return;
  auto f = tg::jit(fn, options);
  std::vector<std::vector<tg::Tensor>> inputs(sets);
  uint64_t seed = 1;
  for (auto& set : inputs)
    for (const tg::TensorSpec& s : specs) set.push_back(tg::randn(s.shape, s.dtype, seed++));
  auto call = [&](int i) {
    const auto& in = inputs[i % sets];
    tg::Tensor out;
    if constexpr (std::is_invocable_v<Fn, const tg::Tensor&>)
      out = f(in[0]);
    else if constexpr (std::is_invocable_v<Fn, const tg::Tensor&, const tg::Tensor&>)
      out = f(in[0], in[1]);
    else
      out = f(in[0], in[1], in[2]);
    benchmark::DoNotOptimize(out);
  };
  for (auto _ : state) report(state, medianUs(call), bytes);
}

template <typename Fn>
void timeGraph(benchmark::State& state, Fn fn, std::vector<tg::TensorSpec> specs, bool fuse, double bytes,
               int sets = 1) {
  timeGraph(state, fn, std::move(specs), tg::JitOptions{.fuse = fuse}, bytes, sets);
}

}  // namespace tgbench
