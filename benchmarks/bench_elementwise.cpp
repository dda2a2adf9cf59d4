//===- bench_elementwise.cpp - Fused vs unfused elementwise graphs on the GPU ===//
//
// Google Benchmark, one binary (tg_bench, with bench_rows.cpp). Each case times 30 calls after
// warm-up, each between its own CUDA events, queued back to back as compare_torch.py does
// (Timing.h, shared with tg_bench_gemm; BenchCase.h), and reports the median as the counter
// `median_us`, with `gbps` (bytes each call must move: inputs read once, outputs written once)
// and `roofline_pct` against the device copy bandwidth measured in the same run. Names are
// <case>/<dtype>/<fused|unfused>, as benchmarks/report.py expects.
//
//===----------------------------------------------------------------------===//
#include "BenchCase.h"
#include "graphs.h"

#include "tg/Runtime/Gpu.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <functional>
#include <vector>

namespace {

using tg::DType;
using tgbench::haveGpu;
using tgbench::report;
using tgbench::timeGraph;

void BM_CopyRoofline(benchmark::State& state) {
  if (!haveGpu(state)) return;
  for (auto _ : state) {
    double us = 0;
    tgbench::copyGbps(&us);
    report(state, us, 2.0 * double(size_t(1) << 30));
  }
}

constexpr int64_t kBig = int64_t(1) << 26;  // 64M elements

void BM_Chain8(benchmark::State& state, DType dt, bool fuse) {
  timeGraph(state, tg_graphs::chain8, {{{kBig}, dt}, {{kBig}, dt}}, fuse,
            3.0 * kBig * tg::dtype_size(dt));
}

/// The chain compiled once for n in [1, 2^26] (JitOptions::dynamic) against the same chain
/// compiled for n itself, at sizes three orders of magnitude apart (issue 18: at most 5%
/// slower at large sizes).
void BM_Chain8Dynamic(benchmark::State& state, DType dt, int64_t n, bool dynamic) {
  tg::JitOptions options;
  if (dynamic) options.dynamic = {{0, 0, tg::Dim("n", 1, kBig)}, {1, 0, tg::Dim("n", 1, kBig)}};
  timeGraph(state, tg_graphs::chain8, {{{n}, dt}, {{n}, dt}}, options, 3.0 * n * tg::dtype_size(dt));
}

void BM_Gelu(benchmark::State& state, DType dt, bool fuse) {
  timeGraph(state, tg_graphs::gelu, {{{kBig}, dt}}, fuse, 2.0 * kBig * tg::dtype_size(dt));
}

void BM_BiasGelu(benchmark::State& state, DType dt, bool fuse) {
  const int64_t m = 8192, n = 8192;
  timeGraph(state, tg_graphs::bias_gelu, {{{m, n}, dt}, {{n}, dt}}, fuse,
            (2.0 * m * n + n) * tg::dtype_size(dt));
}

void BM_Chain32(benchmark::State& state, bool fuse) {
  timeGraph(state, tg_graphs::chain32, {{{1024}, DType::F32}}, fuse, 2.0 * 1024 * 4, /*sets=*/3);
}

#define TG_CASE(name, fn, ...)                                                        \
  BENCHMARK_CAPTURE(fn, name, __VA_ARGS__)->Name(#name)->UseManualTime()->Iterations(1) \
      ->Unit(benchmark::kMicrosecond)

}  // namespace

BENCHMARK(BM_CopyRoofline)->Name("copy/roofline")->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
TG_CASE(chain8/f32/fused, BM_Chain8, DType::F32, true);
TG_CASE(chain8/f32/unfused, BM_Chain8, DType::F32, false);
TG_CASE(chain8/bf16/fused, BM_Chain8, DType::BF16, true);
TG_CASE(chain8/bf16/unfused, BM_Chain8, DType::BF16, false);
TG_CASE(dynamic/chain8_65536/bf16/static, BM_Chain8Dynamic, DType::BF16, int64_t(1) << 16, false);
TG_CASE(dynamic/chain8_65536/bf16/dynamic, BM_Chain8Dynamic, DType::BF16, int64_t(1) << 16, true);
TG_CASE(dynamic/chain8_4194301/bf16/static, BM_Chain8Dynamic, DType::BF16, (int64_t(1) << 22) - 3, false);
TG_CASE(dynamic/chain8_4194301/bf16/dynamic, BM_Chain8Dynamic, DType::BF16, (int64_t(1) << 22) - 3, true);
TG_CASE(dynamic/chain8_67108864/bf16/static, BM_Chain8Dynamic, DType::BF16, kBig, false);
TG_CASE(dynamic/chain8_67108864/bf16/dynamic, BM_Chain8Dynamic, DType::BF16, kBig, true);
TG_CASE(dynamic/chain8_67108864/f32/static, BM_Chain8Dynamic, DType::F32, kBig, false);
TG_CASE(dynamic/chain8_67108864/f32/dynamic, BM_Chain8Dynamic, DType::F32, kBig, true);
TG_CASE(gelu/f32/fused, BM_Gelu, DType::F32, true);
TG_CASE(gelu/f32/unfused, BM_Gelu, DType::F32, false);
TG_CASE(gelu/bf16/fused, BM_Gelu, DType::BF16, true);
TG_CASE(gelu/bf16/unfused, BM_Gelu, DType::BF16, false);
TG_CASE(bias_gelu/f32/fused, BM_BiasGelu, DType::F32, true);
TG_CASE(bias_gelu/f32/unfused, BM_BiasGelu, DType::F32, false);
TG_CASE(bias_gelu/bf16/fused, BM_BiasGelu, DType::BF16, true);
TG_CASE(bias_gelu/bf16/unfused, BM_BiasGelu, DType::BF16, false);
TG_CASE(chain32/f32/fused, BM_Chain32, true);
TG_CASE(chain32/f32/unfused, BM_Chain32, false);
// Per-call host cost and CUDA graphs on/off: tg_bench_runtime (bench_runtime.cpp).
// dynamic/chain8_<n>/<dtype>/<static|dynamic>: the chain compiled for n, or once for a range.

BENCHMARK_MAIN();  // the row kernels' cases are in bench_rows.cpp, linked into this binary
