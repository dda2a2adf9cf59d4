//===- bench_rows.cpp - Row kernels: softmax, layer_norm, RMSNorm on the GPU ===//
//
// Part of tg_bench (BenchCase.h). Each normalisation over the last dim, f32 and bf16, for rows
// of 256 to 262,144 elements with about 256 MiB of input (R = 256 MiB / (N * element size)),
// plus bf16 softmax at 32768 x 4096 and a launch-bound 5000 x 777. Bytes are the input read
// once and the output written once (weights included). Names are
// <case>/<dtype>/<R>x<N>/<variant>: `fused` is the default (one row kernel), `apart` keeps
// every reduction a kernel of its own (JitOptions::fuse_reductions = false, tg before row
// kernels), timed for a few shapes. compare_torch.py times the same cases in PyTorch. Then
// dynamic/<case>/bf16/<R>x4096/<static|dynamic>: softmax and layer_norm compiled once for R in
// [1, 65536] against compiled for R (issue 18). Last, column sums (`sum(x, {0})`,
// templates/columns.cuh) of about 256 MiB.
//
//===----------------------------------------------------------------------===//
#include "BenchCase.h"
#include "graphs.h"

#include <string>
#include <utility>

namespace {

using tg::DType;

enum class Norm { Softmax, LayerNorm, RmsNorm };

void BM_Row(benchmark::State& state, Norm norm, DType dt, int64_t rows, int64_t width, bool rowKernels) {
  const tg::JitOptions options{.fuse = true, .fuse_reductions = rowKernels};
  const double e = static_cast<double>(tg::dtype_size(dt)), x = double(rows) * double(width) * e;
  switch (norm) {
    case Norm::Softmax:
      tgbench::timeGraph(state, tg_graphs::softmax_rows, {{{rows, width}, dt}}, options, 2 * x);
      break;
    case Norm::LayerNorm:
      tgbench::timeGraph(state, tg_graphs::layer_norm_rows, {{{rows, width}, dt}, {{width}, dt}, {{width}, dt}},
                         options, 2 * x + 2 * double(width) * e);
      break;
    case Norm::RmsNorm:
      tgbench::timeGraph(state, tg_graphs::rmsnorm_rows, {{{rows, width}, dt}, {{width}, dt}}, options,
                         2 * x + double(width) * e);
      break;
  }
}

/// The row kernels compiled once for R in [1, 65536] (JitOptions::dynamic on the rows) against
/// the same compiled for R itself: dynamic/<case>/<dtype>/<R>x<N>/<static|dynamic>.
void BM_RowDynamic(benchmark::State& state, Norm norm, DType dt, int64_t rows, int64_t width, bool dynamic) {
  tg::JitOptions options;
  if (dynamic) options.dynamic = {{0, 0, tg::Dim("rows", 1, 65536)}};
  const double e = static_cast<double>(tg::dtype_size(dt)), x = double(rows) * double(width) * e;
  if (norm == Norm::Softmax)
    tgbench::timeGraph(state, tg_graphs::softmax_rows, {{{rows, width}, dt}}, options, 2 * x);
  else
    tgbench::timeGraph(state, tg_graphs::layer_norm_rows, {{{rows, width}, dt}, {{width}, dt}, {{width}, dt}},
                       options, 2 * x + 2 * double(width) * e);
}

void registerRow(const char* name, Norm norm, DType dt, int64_t rows, int64_t width, bool rowKernels) {
  const std::string full = std::string(name) + "/" + tg::dtype_name(dt) + "/" + std::to_string(rows) + "x" +
                           std::to_string(width) + (rowKernels ? "/fused" : "/apart");
  benchmark::RegisterBenchmark(full.c_str(), BM_Row, norm, dt, rows, width, rowKernels)
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMicrosecond);
}

const bool registered = [] {
  const struct {
    const char* name;
    Norm norm;
  } norms[] = {{"softmax", Norm::Softmax}, {"layer_norm", Norm::LayerNorm}, {"rmsnorm", Norm::RmsNorm}};
  for (const auto& n : norms)
    for (DType dt : {DType::F32, DType::BF16}) {
      const int64_t elements = (int64_t(256) << 20) / static_cast<int64_t>(tg::dtype_size(dt));
      for (int64_t width : {256, 1024, 4096, 16384, 65536, 262144}) {
        registerRow(n.name, n.norm, dt, elements / width, width, true);
        if (width == 1024 || width == 4096) registerRow(n.name, n.norm, dt, elements / width, width, false);
      }
      registerRow(n.name, n.norm, dt, 5000, 777, true);
      registerRow(n.name, n.norm, dt, 5000, 777, false);
    }
  for (const auto& n : {std::make_pair("softmax", Norm::Softmax), std::make_pair("layer_norm", Norm::LayerNorm)})
    for (int64_t rows : {64, 2048, 65536})
      for (bool dynamic : {false, true}) {
        const std::string full = std::string("dynamic/") + n.first + "/bf16/" + std::to_string(rows) + "x4096/" +
                                 (dynamic ? "dynamic" : "static");
        benchmark::RegisterBenchmark(full.c_str(), BM_RowDynamic, n.second, DType::BF16, rows, int64_t(4096), dynamic)
            ->UseManualTime()
            ->Iterations(1)
            ->Unit(benchmark::kMicrosecond);
      }
  registerRow("softmax", Norm::Softmax, DType::BF16, 32768, 4096, true);
  registerRow("softmax", Norm::Softmax, DType::BF16, 32768, 4096, false);
  // Column sums (a reduction over the leading dim: templates/columns.cuh), about 256 MiB.
  for (DType dt : {DType::F32, DType::BF16})
    for (int64_t cols : {1024, 8192}) {
      const int64_t rows = (int64_t(256) << 20) / static_cast<int64_t>(tg::dtype_size(dt)) / cols;
      const std::string full = std::string("column_sum/") + tg::dtype_name(dt) + "/" + std::to_string(rows) + "x" +
                               std::to_string(cols) + "/fused";
      benchmark::RegisterBenchmark(full.c_str(), [dt, rows, cols](benchmark::State& state) {
        const double e = static_cast<double>(tg::dtype_size(dt));
        tgbench::timeGraph(state, [](const tg::Tensor& x) { return tg::sum(x, {0}); }, {{{rows, cols}, dt}},
                           tg::JitOptions{}, (double(rows) * double(cols) + double(cols)) * e);
      })->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
    }
  return true;
}();

}  // namespace
