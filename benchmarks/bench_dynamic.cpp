//===- bench_dynamic.cpp - Functions compiled once for a range of sizes (issue 18) ===//
//
// dynamic/mlp/bf16/<M>x4096x4096/<static|dynamic>: gelu_tanh(X @ W^T + b) (X [M, 4096],
// W [4096, 4096]: one wgmma kernel with its epilogue) compiled for M itself, or once for M in
// [1, 16384] (JitOptions::dynamic on X's rows: the tiles chosen for the range's largest M, M a
// kernel argument, the tensor maps encoded at each size). Reports `tflops` beside median_us;
// the ratio dynamic / static at each M is the price of one compile for the range. (The chain
// and the row kernels: bench_elementwise.cpp and bench_rows.cpp.)
//
//===----------------------------------------------------------------------===//
#include "BenchCase.h"
#include "graphs.h"

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

const bool registered = [] {
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
