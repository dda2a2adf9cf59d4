//===- bench_dynamic.cpp - Functions compiled once for a range of sizes (issue 18) ===//
//
// dynamic/mlp/bf16/<M>x4096x4096/<static|dynamic>: gelu_tanh(X @ W^T + b) (X [M, 4096],
// W [4096, 4096]: one wgmma kernel with its epilogue) compiled for M itself, or once for M in
// [1, 16384] (JitOptions::dynamic on X's rows: the tiles chosen for the range's largest M, M a
// kernel argument, the tensor maps encoded at each size). Reports `tflops` beside median_us;
// the ratio dynamic / static at each M is the price of one compile for the range. (The chain
// and the row kernels: bench_elementwise.cpp and bench_rows.cpp.)
// dynamic/sweep/<case>/64x16: one function called at 64 batch sizes x 16 sequence lengths
// (batch 1..64, seq from 1 to 2048) over [batch, seq, d], compiled with both dims dynamic:
// counters `graphs` (compiled graphs: 1, plus one for each size of 1 held fixed: batch = 1,
// seq = 1), `recompiles` (the report's), `variants` (guarded launch variants in those graphs),
// and `size_changes` (the time: the whole sweep, its inputs made on the device included). Cases: `mlp` (gelu(X @ W^T + b), W [1024, 256]: a wgmma kernel and its
// small-tile variant), `layer_norm` (d = 1024), `chain8` (d = 64).
// dynamic/block/bf16/<B>x<S>x1024/<static|dynamic>: a pre-norm transformer block
// (examples/graphs.h: layer_norm, the q, k, v projection, causal flash attention over 16 heads
// of 64 split by transposes, the output projection with the residual, a 4096-wide GELU MLP)
// compiled for its shape or once for batch in [1, 64] x seq in [1, 4096]; `tflops` counts the
// projections (24 d^2 per token) and the causal attention's products (2 S d per token).
// dynamic/prefill/<T>/<static|dynamic>: the decoder's forward pass (examples/llama_model.h,
// the example's 12-layer configuration: dim 2048, 16 query heads on 4 key/value heads of 128,
// a cache of 640 positions) over a prompt of T tokens, the caches donated and fed back, compiled
// for T or once for T in [1, 512]; median_us per prefill (a CUDA graph replay). With
// TG_BENCH_PROFILE=1, each kernel's device time per prefill goes to stderr.
// dynamic/heads_split/bf16/<B>x<S>x1024/<static|dynamic>: x [B, S, 1024] as [B, 16, S, 64],
// scaled (an elementwise copy through a reshape and a transpose; over dynamic B and S its index
// arithmetic divides by run-time extents): GB/s and roofline_pct against the copy.
//
//===----------------------------------------------------------------------===//
#include "BenchCase.h"
#include "graphs.h"
#include "llama_model.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace {

using tg::DType;

void BM_MlpDynamic(benchmark::State& state, int64_t m, bool dynamic) {
  tg::JitOptions options;
  if (dynamic) options.dynamic = {{0, 0, tg::Dim("tokens", 1, 16384)}};
  const int64_t n = 4096, k = 4096;
  tgbench::timeGraph(state, tg_graphs::mlp, {{{m, k}, DType::BF16}, {{n, k}, DType::BF16}, {{n}, DType::BF16}}, options,
                     0.0);
  if (state.counters.count("median_us"))
    state.counters["tflops"] = 2.0 * double(m) * double(n) * double(k) / (state.counters["median_us"] * 1e-6) / 1e12;
}

/// A heads split as attention takes its input: x [B, S, 1024] as [B, 16, S, 64] (scaled), one
/// elementwise copy whose reads go through a reshape and a transpose of the dynamic dims: with
/// dynamic B and S its index arithmetic divides by run-time extents.
tg::Tensor headsSplit(const tg::Tensor& x) {
  const int64_t b = x.shape()[0], s = x.shape()[1];
  return tg::transpose(tg::reshape(x, {b, s, 16, 64}), 1, 2) * 0.125f;
}

void BM_HeadsSplit(benchmark::State& state, int64_t b, int64_t s, bool dynamic) {
  tg::JitOptions options;
  if (dynamic) options.dynamic = {{0, 0, tg::Dim("batch", 1, 64)}, {0, 1, tg::Dim("seq", 1, 8192)}};
  tgbench::timeGraph(state, headsSplit, {{{b, s, 1024}, DType::BF16}}, options, 2.0 * 2.0 * double(b * s * 1024));
}

void BM_Block(benchmark::State& state, int64_t b, int64_t s, bool dynamic) {
  if (!tgbench::haveGpu(state)) return;
  const int64_t d = 1024;
  const tg_graphs::BlockWeights w = tg_graphs::block_weights(d, 16, tg::Device::CUDA);
  tg::JitOptions options;
  if (dynamic) options.dynamic = {{0, 0, tg::Dim("batch", 1, 64)}, {0, 1, tg::Dim("seq", 1, 4096)}};
  tgbench::timeGraph(
      state, [&w](const tg::Tensor& x) { return tg_graphs::transformer_block(x, w); }, {{{b, s, d}, DType::BF16}},
      options, 0.0);
  if (state.counters.count("median_us")) {
    const double tokens = double(b * s), flops = tokens * (24.0 * d * d + 2.0 * double(s) * d);
    state.counters["tflops"] = flops / (state.counters["median_us"] * 1e-6) / 1e12;
  }
}

void BM_Prefill(benchmark::State& state, int64_t T, bool dynamic) {
  if (!tgbench::haveGpu(state)) return;
  const tg_llama::Config& c = tg_llama::kBig;
  const tg_llama::Model model = tg_llama::makeModel(c, tg::Device::CUDA);
  tg::JitOptions options;
  options.donate = {2, 3};
  if (dynamic) options.dynamic = {{0, 0, tg::Dim("T", 1, 512)}};
  const char* profile = std::getenv("TG_BENCH_PROFILE");
  options.profile = profile && *profile == '1';
  auto f = tg::jit([&model](const tg::Tensor& tokens, const tg::Tensor& pos, const tg::Tensor& kc,
                            const tg::Tensor& vc) { return tg_llama::forward(model, tokens, pos, kc, vc); },
                   options);
  std::vector<int32_t> ids(static_cast<size_t>(T));
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>((i * 7919 + 13) % static_cast<size_t>(c.vocab));
  const tg::Tensor tokens = tg::from_vector(ids, {T}).to(tg::Device::CUDA);
  const tg::Tensor pos = tg::from_vector(std::vector<int32_t>{0}, {}).to(tg::Device::CUDA);
  const tg::Shape cache = {c.layers, c.kvHeads, c.maxSeq(), c.headDim()};
  tg::Tensor kc = tg::randn(cache, DType::BF16, 5), vc = tg::randn(cache, DType::BF16, 6);
  auto call = [&](int) {  // the caches come back (donated in, written in place)
    auto [next, p, k, v, logits] = f(tokens, pos, kc, vc);
    kc = k;
    vc = v;
    benchmark::DoNotOptimize(logits);
  };
  for (auto _ : state) tgbench::report(state, tgbench::medianUs(call), 0.0);
  if (options.profile) {  // TG_BENCH_PROFILE=1: each kernel's device time per prefill, to stderr
    for (int i = 0; i < 20; ++i) call(i);
    tg::synchronize();
    for (const tg::JitReport::Graph& g : f.report().graphs)
      for (const tg::JitReport::Graph::KernelTime& t : g.profile)
        std::fprintf(stderr, "prefill %lld %s: %8.1f us  %zu x %s | %s\n", static_cast<long long>(T),
                     dynamic ? "dynamic" : "static", t.usPerRun, t.launches, t.kernel.c_str(), t.what.c_str());
  }
}

enum class SweepCase { mlp, layer_norm, chain8 };

void BM_Sweep(benchmark::State& state, SweepCase c) {
  if (!tgbench::haveGpu(state)) return;
  tg::JitOptions options;
  const tg::Dim batch("batch", 1, 64), seq("seq", 1, 2048);
  options.dynamic = {{0, 0, batch}, {0, 1, seq}, {1, 0, batch}, {1, 1, seq}};
  const int64_t d = c == SweepCase::mlp ? 256 : c == SweepCase::layer_norm ? 1024 : 64;
  tg::Tensor w = tg::randn({1024, 256}, DType::BF16, 7), b = tg::randn({1024}, DType::BF16, 8);
  tg::Tensor g = tg::randn({d}, DType::BF16, 9), beta = tg::randn({d}, DType::BF16, 10);
  auto f = tg::jit(
      [&](const tg::Tensor& x, const tg::Tensor& y) {
        if (c == SweepCase::mlp) return tg_graphs::mlp(x, w, b);
        if (c == SweepCase::layer_norm) return tg_graphs::layer_norm_rows(x, g, beta);
        return tg_graphs::chain8(x, y);
      },
      options);
  const std::vector<int64_t> seqs = {1, 7, 16, 33, 64, 100, 128, 255, 256, 300, 511, 512, 777, 1000, 1024, 2048};
  for (auto _ : state) {
    // Inputs made at each size (on the device, no compilation), so the time is of the whole
    // sweep, inputs included: the counters are the point.
    uint64_t seed = 100, calls = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (int64_t bs = 1; bs <= 64; ++bs)
      for (int64_t sl : seqs) {
        tg::Tensor x = tg::randn({bs, sl, d}, DType::BF16, seed++);
        tg::Tensor y = c == SweepCase::chain8 ? tg::randn({bs, sl, d}, DType::BF16, seed++) : x;
        benchmark::DoNotOptimize(f(x, y));
        ++calls;
      }
    tg::synchronize();
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(us * 1e-6);
    const tg::JitReport r = f.report();
    double variants = 0, sizeChanges = 0;
    for (const tg::JitReport::Graph& graph : r.graphs) {
      variants += static_cast<double>(graph.sizeVariants.size());
      sizeChanges += static_cast<double>(graph.sizeChanges);
    }
    state.counters["calls"] = static_cast<double>(calls);
    state.counters["graphs"] = static_cast<double>(r.graphs.size());
    state.counters["recompiles"] = static_cast<double>(r.recompiles.size());
    state.counters["variants"] = variants;
    state.counters["size_changes"] = sizeChanges;
  }
}

const bool registered = [] {
  for (auto [name, c] : {std::pair{"mlp", SweepCase::mlp}, std::pair{"layer_norm", SweepCase::layer_norm},
                         std::pair{"chain8", SweepCase::chain8}}) {
    const std::string full = std::string("dynamic/sweep/") + name + "/64x16";
    benchmark::RegisterBenchmark(full.c_str(), BM_Sweep, c)->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
  }
  for (int64_t T : {17, 128, 333, 512})
    for (bool dynamic : {false, true}) {
      const std::string name = "dynamic/prefill/" + std::to_string(T) + "/" + (dynamic ? "dynamic" : "static");
      benchmark::RegisterBenchmark(name.c_str(), BM_Prefill, T, dynamic)
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMicrosecond);
    }
  for (auto [b, sl] : {std::pair<int64_t, int64_t>{1, 512}, {8, 1024}, {16, 4096}, {7, 3001}})
    for (bool dynamic : {false, true}) {
      const std::string name = "dynamic/block/bf16/" + std::to_string(b) + "x" + std::to_string(sl) + "x1024/" +
                               (dynamic ? "dynamic" : "static");
      benchmark::RegisterBenchmark(name.c_str(), BM_Block, b, sl, dynamic)
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMicrosecond);
    }
  for (auto [b, sl] : {std::pair<int64_t, int64_t>{1, 512}, {8, 2048}, {32, 4096}, {7, 3001}})
    for (bool dynamic : {false, true}) {
      const std::string name = "dynamic/heads_split/bf16/" + std::to_string(b) + "x" + std::to_string(sl) + "x1024/" +
                               (dynamic ? "dynamic" : "static");
      benchmark::RegisterBenchmark(name.c_str(), BM_HeadsSplit, b, sl, dynamic)
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMicrosecond);
    }
  for (int64_t m : {256, 2048, 16384, 5000})
    for (bool dynamic : {false, true}) {
      const std::string name = "dynamic/mlp/bf16/" + std::to_string(m) + "x4096x4096/" + (dynamic ? "dynamic" : "static");
      benchmark::RegisterBenchmark(name.c_str(), BM_MlpDynamic, m, dynamic)
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMicrosecond);
    }
  return true;
}();

}  // namespace
