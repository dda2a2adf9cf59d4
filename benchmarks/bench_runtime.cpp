//===- bench_runtime.cpp - What tg's runtime costs: compiles, warm starts, dispatch ===//
//
// Google Benchmark, one binary (tg_bench_runtime); every figure is the counter `median_us`
// (Google Benchmark's own time is the same figure, set manually). Cases:
//   compile/cold/chain8       first call of the 8-op chain in a fresh process with an empty
//                             TG_CACHE_DIR: MLIR start-up, trace, passes, NVRTC, module load,
//                             first run, until the result is ready (host wall time). Counters
//                             nvrtc_ms and load_ms split out NVRTC and module loading;
//                             mlir_init_us is the MLIR context's start-up, part of the total.
//   compile/warm_start/chain8 the same in a fresh process whose TG_CACHE_DIR the cold process
//                             filled: no NVRTC (disk_hits counts cubins read from disk).
//   compile/memory_hit/chain8 a second jit function of the same graph in this process: trace
//                             and passes again, kernels found loaded in memory.
//   host_per_call/chain32/<fused|unfused>/<graph|direct>
//                             host time of one replayed call, inputs on the device (median),
//                             every result kept alive: each call gets a new result buffer, so
//                             a graph needs new parameters every call (the worst case).
//   host_per_call/chain32/fused/graph/loop
//                             the same in the usual loop, `z = f(x)`: the previous result is
//                             dropped (inside the timed call), its buffer comes back.
//   host_per_call/symbolic_chain8/<same_size|new_size>
//                             rt::Executor on a hand-made plan compiled for a range of sizes
//                             (tests/common/SymbolicPlans.h: 8 launches, 2 symbols), as a CUDA
//                             graph: host time of one call at the previous call's sizes, and
//                             of one at new sizes every call (64 size sets in turn, so no graph
//                             instance holds them: the plan's sizes evaluated, the arena
//                             packed, every node's parameters and grid set). Counters
//                             param_updates (nodes updated) and size_changes.
//   host_per_call/dynamic_jit_chain8/<same_size|new_size>
//                             the same through tg::jit with JitOptions::dynamic (the 8-op
//                             chain of 4096 + 37k elements, compiled once): counters graphs
//                             (compiled), size_changes, cuda_graph.
//   host_per_call/driver_floor
//                             the bare driver calls on the same host (DriverFloor.h): counters
//                             graph_launch_us (its median_us), node_set_params_us,
//                             alloc_free_us, launch_kernel_us, chain8_new_params_us and
//                             chain8_new_grids_us (8 node updates and the launch).
//   chain32/<fused|unfused>/<graph|direct>
//                             device time per call, calls queued back to back (Timing.h),
//                             three input sets in rotation: every call updates parameters.
// "graph" is the default ({.cuda_graphs = true}), "direct" is {.cuda_graphs = false}.
//
// Fresh processes are this binary run again (/proc/self/exe) with --tg-first-call; it prints
// one line of figures that the parent reads. The parent itself runs with a temporary
// TG_CACHE_DIR (removed at exit), so nothing here reads or fills the user's cache.
//
//===----------------------------------------------------------------------===//
#include "DriverFloor.h"
#include "SymbolicPlans.h"
#include "Timing.h"
#include "graphs.h"

#include "tg/Runtime/Executor.h"
#include "tg/Runtime/KernelCache.h"

#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

using tg::DType;
using Clock = std::chrono::steady_clock;

constexpr const char* kFirstCallFlag = "--tg-first-call";
constexpr int64_t kChain8Elements = int64_t(1) << 20;
constexpr int kFreshProcesses = 5;

double usSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

bool haveGpu(benchmark::State& state) {
  if (tg::cuda_available()) return true;
  state.SkipWithError("no GPU");
  return false;
}

void report(benchmark::State& state, double us) {
  state.SetIterationTime(us * 1e-6);
  state.counters["median_us"] = us;
}

/// A new, empty directory under /tmp.
std::string freshDirectory() {
  std::string pattern = (std::filesystem::temp_directory_path() / "tg-bench-runtime-XXXXXX").string();
  if (!mkdtemp(pattern.data())) {
    std::perror("mkdtemp");
    std::exit(1);
  }
  return pattern;
}

//===----------------------------------------------------------------------===//
// The child: one first call in a fresh process
//===----------------------------------------------------------------------===//

/// Runs in a fresh process: the GPU is opened and the inputs made first (not tg's compile
/// cost), then the MLIR context is started and chain8 called once, until its result is ready.
/// Prints "first_call key=value ..." for the parent.
int firstCallChild() {
  tg::Tensor x = tg::randn({kChain8Elements}, DType::F32, 1);
  tg::Tensor y = tg::randn({kChain8Elements}, DType::F32, 2);
  tg::synchronize();
  Clock::time_point t0 = Clock::now();
  // The shared MLIR context starts on first use (dialects, registrations): time it apart.
  (void)tg::jit([](const tg::Tensor& a) { return a; }).trace_ir(tg::TensorSpec{{1}, DType::F32});
  const double mlirInitUs = usSince(t0);
  Clock::time_point t1 = Clock::now();
  auto f = tg::jit(tg_graphs::chain8);
  tg::Tensor z = f(x, y);
  tg::synchronize();
  const double callUs = usSince(t1);
  const tg::rt::KernelCache::Stats s = tg::rt::KernelCache::instance().stats();
  std::printf("first_call total_us=%.1f mlir_init_us=%.1f call_us=%.1f nvrtc_ms=%.3f load_ms=%.3f "
              "misses=%llu disk_hits=%llu\n",
              mlirInitUs + callUs, mlirInitUs, callUs, s.compileMs, s.loadMs,
              static_cast<unsigned long long>(s.misses),
              static_cast<unsigned long long>(s.diskHits));
  return 0;
}

/// Runs this binary again as a first-call child with TG_CACHE_DIR=`cacheDir` and returns its
/// figures (empty when it failed).
std::map<std::string, double> runFirstCallChild(const std::string& cacheDir) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string command =
      "TG_CACHE_DIR='" + cacheDir + "' '" + self + "' " + kFirstCallFlag + " 2>&1";
  std::map<std::string, double> figures;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return figures;
  char line[1024];
  while (std::fgets(line, sizeof(line), pipe)) {
    std::istringstream words(line);
    std::string word;
    if (!(words >> word) || word != "first_call") continue;
    while (words >> word)
      if (size_t eq = word.find('='); eq != std::string::npos)
        figures[word.substr(0, eq)] = std::atof(word.c_str() + eq + 1);
  }
  if (pclose(pipe) != 0) figures.clear();
  return figures;
}

//===----------------------------------------------------------------------===//
// Compiles and warm starts
//===----------------------------------------------------------------------===//

/// Cold and warm first calls, each in its own fresh process: a cold child fills an empty cache
/// directory, a warm child then starts from it. Medians over kFreshProcesses pairs.
void BM_FirstCall(benchmark::State& state, bool warm) {
  if (!haveGpu(state)) return;
  for (auto _ : state) {
    std::map<std::string, std::vector<double>> all;
    for (int i = 0; i < kFreshProcesses; ++i) {
      const std::string dir = freshDirectory();
      std::map<std::string, double> cold = runFirstCallChild(dir);
      std::map<std::string, double> figures = warm ? runFirstCallChild(dir) : cold;
      std::filesystem::remove_all(dir);
      if (cold.empty() || figures.empty()) {
        state.SkipWithError("a first-call child process failed (run it: tg_bench_runtime --tg-first-call)");
        return;
      }
      for (const auto& [key, value] : figures) all[key].push_back(value);
    }
    report(state, median(all["total_us"]));
    for (const char* key : {"mlir_init_us", "call_us", "nvrtc_ms", "load_ms", "misses", "disk_hits"})
      state.counters[key] = median(all[key]);
  }
}

/// A second jit function object of a graph this process has compiled: the trace and the passes
/// run again, every kernel is found loaded in memory.
void BM_MemoryHit(benchmark::State& state) {
  if (!haveGpu(state)) return;
  tg::Tensor x = tg::randn({kChain8Elements}, DType::F32, 1);
  tg::Tensor y = tg::randn({kChain8Elements}, DType::F32, 2);
  (void)tg::jit(tg_graphs::chain8)(x, y);  // compiled (or found) once
  tg::synchronize();
  for (auto _ : state) {
    std::vector<double> us;
    for (int i = 0; i < 10; ++i) {
      const tg::rt::KernelCache::Stats before = tg::rt::KernelCache::instance().stats();
      Clock::time_point t0 = Clock::now();
      auto f = tg::jit(tg_graphs::chain8);
      tg::Tensor z = f(x, y);
      tg::synchronize();
      us.push_back(usSince(t0));
      const tg::rt::KernelCache::Stats after = tg::rt::KernelCache::instance().stats();
      if (after.misses != before.misses || after.diskHits != before.diskHits) {
        state.SkipWithError("a kernel was not found in memory");
        return;
      }
    }
    report(state, median(us));
  }
}

//===----------------------------------------------------------------------===//
// Per call: host cost and device time, with and without CUDA graphs
//===----------------------------------------------------------------------===//

tg::JitOptions options(bool fuse, bool cudaGraphs) {
  tg::JitOptions o;
  o.fuse = fuse;
  o.cuda_graphs = cudaGraphs;
  return o;
}

constexpr int kHostCalls = 500;

/// Host time of one call of a compiled function whose inputs are already on the device:
/// median of kHostCalls calls, each timed with the host clock, queued without waiting. With
/// `keepResults`, every result stays alive (each call allocates a new buffer, and a graph needs
/// new parameters); otherwise each result replaces the previous one, as in `z = f(x)`.
void BM_HostPerCall(benchmark::State& state, bool fuse, bool graphs, bool keepResults) {
  if (!haveGpu(state)) return;
  auto f = tg::jit(tg_graphs::chain32, options(fuse, graphs));
  tg::Tensor x = tg::randn({1024}, DType::F32, 7);
  for (int i = 0; i < 10; ++i) benchmark::DoNotOptimize(f(x));
  tg::synchronize();
  for (auto _ : state) {
    std::vector<tg::Tensor> keep;
    tg::Tensor z;
    keep.reserve(kHostCalls);
    const double m = tgbench::medianHostUs(kHostCalls, [&](int) {
      if (keepResults)
        keep.push_back(f(x));
      else
        z = f(x);
    });
    tg::synchronize();
    report(state, m);
    state.counters["host_us_per_call"] = m;
    if (!f.report().graphs.empty())
      state.counters["param_updates"] =
          static_cast<double>(f.report().graphs.at(0).cudaGraphParameterUpdates);
  }
}

/// Host time of one call of a symbolic plan through the Executor (see the file comment).
void BM_SymbolicSizes(benchmark::State& state, bool newSizeEachCall) {
  if (!haveGpu(state)) return;
  tg::rt::Gpu& gpu = *tg::rt::Gpu::get();
  tg::rt::Executor executor(tgtest::symbolicChainPlan(8), gpu);
  std::vector<std::vector<int64_t>> sizes;
  for (int64_t k = 0; k < (newSizeEachCall ? 64 : 1); ++k) sizes.push_back({1 + k % 8, 1000 + 37 * k});
  std::vector<std::shared_ptr<tg::rt::DeviceBuffer>> inputs;
  for (const std::vector<int64_t>& s : sizes) {
    const size_t n = static_cast<size_t>(s[0] * s[1]);
    std::vector<float> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 97) * 0.25f - 3.0f;
    inputs.push_back(gpu.allocate(n * 4));
    gpu.copyToDevice(inputs.back()->ptr(), x.data(), n * 4);
  }
  std::vector<std::shared_ptr<tg::rt::DeviceBuffer>> results;
  auto call = [&](int i) {
    const size_t k = static_cast<size_t>(i) % sizes.size();
    executor.run({inputs[k]}, results, /*mayUseCudaGraph=*/true, sizes[k]);
  };
  for (int i = 0; i < 10; ++i) call(i);
  gpu.synchronize();
  for (auto _ : state) {
    const uint64_t updates = executor.cudaGraphParameterUpdates();
    const uint64_t changes = executor.sizeChanges();
    const double m = tgbench::medianHostUs(kHostCalls, call);
    gpu.synchronize();
    report(state, m);
    state.counters["param_updates"] = static_cast<double>(executor.cudaGraphParameterUpdates() - updates);
    state.counters["size_changes"] = static_cast<double>(executor.sizeChanges() - changes);
  }
}

/// Host time of one call of a jit function with dynamic dims (JitOptions::dynamic: the 8-op
/// chain compiled once for its range), at the previous call's size or at a new size each call
/// (64 sizes in turn): the sizes read from the arguments, the variant found, and the plan's
/// sizes and the CUDA graph's parameters updated (see the file comment).
void BM_DynamicJit(benchmark::State& state, bool newSizeEachCall) {
  if (!haveGpu(state)) return;
  auto f = tg::jit(tg_graphs::chain8, {.dynamic = {{0, 0, tg::Dim("n", 1, 1 << 20)}, {1, 0, tg::Dim("n", 1, 1 << 20)}}});
  std::vector<tg::Tensor> xs, ys;
  for (int64_t k = 0; k < (newSizeEachCall ? 64 : 1); ++k) {
    xs.push_back(tg::randn({4096 + 37 * k}, DType::F32, static_cast<uint64_t>(k) + 1));
    ys.push_back(tg::randn({4096 + 37 * k}, DType::F32, static_cast<uint64_t>(k) + 100));
  }
  tg::Tensor z;
  auto call = [&](int i) {
    const size_t k = static_cast<size_t>(i) % xs.size();
    z = f(xs[k], ys[k]);
  };
  for (int i = 0; i < 70; ++i) call(i);
  tg::synchronize();
  for (auto _ : state) {
    const tg::JitReport before = f.report();
    const double m = tgbench::medianHostUs(kHostCalls, call);
    tg::synchronize();
    report(state, m);
    const tg::JitReport after = f.report();
    state.counters["graphs"] = static_cast<double>(after.graphs.size());
    if (!after.graphs.empty() && !before.graphs.empty()) {
      state.counters["size_changes"] = static_cast<double>(after.graphs[0].sizeChanges - before.graphs[0].sizeChanges);
      state.counters["cuda_graph"] = after.graphs[0].cudaGraph ? 1 : 0;
    }
  }
}

/// The bare driver calls a replayed call makes, on this host (DriverFloor.h).
void BM_DriverFloor(benchmark::State& state) {
  if (!haveGpu(state)) return;
  for (auto _ : state) {
    tgbench::DriverFloor floor;
    std::string error;
    if (!tgbench::measureDriverFloor(kHostCalls, floor, error)) {
      state.SkipWithError(error.c_str());
      return;
    }
    report(state, floor.graphLaunchUs);
    state.counters["graph_launch_us"] = floor.graphLaunchUs;
    state.counters["node_set_params_us"] = floor.nodeSetParamsUs;
    state.counters["alloc_free_us"] = floor.allocFreeUs;
    state.counters["launch_kernel_us"] = floor.launchKernelUs;
    state.counters["chain8_new_params_us"] = floor.chain8NewParamsUs;
    state.counters["chain8_new_grids_us"] = floor.chain8NewGridsUs;
  }
}

/// Device time per call of the 32-op chain on 1024 elements: launch-bound, the case CUDA
/// graphs are for.
void BM_Chain32(benchmark::State& state, bool fuse, bool graphs) {
  if (!haveGpu(state)) return;
  auto f = tg::jit(tg_graphs::chain32, options(fuse, graphs));
  std::vector<tg::Tensor> inputs;
  for (uint64_t seed = 1; seed <= 3; ++seed) inputs.push_back(tg::randn({1024}, DType::F32, seed));
  auto call = [&](int i) { benchmark::DoNotOptimize(f(inputs[i % 3])); };
  for (auto _ : state) {
    report(state, tgbench::medianUs(call, /*warmup=*/5, /*iters=*/200));
    state.counters["kernels"] = static_cast<double>(f.report().graphs.at(0).kernels);
    state.counters["cuda_graph"] = f.report().graphs.at(0).cudaGraph ? 1 : 0;
  }
}

#define TG_CASE(name, fn, ...)                                                        \
  BENCHMARK_CAPTURE(fn, name, __VA_ARGS__)->Name(#name)->UseManualTime()->Iterations(1) \
      ->Unit(benchmark::kMicrosecond)

TG_CASE(compile/cold/chain8, BM_FirstCall, /*warm=*/false);
TG_CASE(compile/warm_start/chain8, BM_FirstCall, /*warm=*/true);
BENCHMARK(BM_MemoryHit)->Name("compile/memory_hit/chain8")->UseManualTime()->Iterations(1)
    ->Unit(benchmark::kMicrosecond);
TG_CASE(host_per_call/chain32/fused/graph, BM_HostPerCall, true, true, true);
TG_CASE(host_per_call/chain32/fused/direct, BM_HostPerCall, true, false, true);
TG_CASE(host_per_call/chain32/unfused/graph, BM_HostPerCall, false, true, true);
TG_CASE(host_per_call/chain32/unfused/direct, BM_HostPerCall, false, false, true);
TG_CASE(host_per_call/chain32/fused/graph/loop, BM_HostPerCall, true, true, false);
TG_CASE(host_per_call/chain32/fused/direct/loop, BM_HostPerCall, true, false, false);
TG_CASE(host_per_call/symbolic_chain8/same_size, BM_SymbolicSizes, false);
TG_CASE(host_per_call/symbolic_chain8/new_size, BM_SymbolicSizes, true);
TG_CASE(host_per_call/dynamic_jit_chain8/same_size, BM_DynamicJit, false);
TG_CASE(host_per_call/dynamic_jit_chain8/new_size, BM_DynamicJit, true);
BENCHMARK(BM_DriverFloor)->Name("host_per_call/driver_floor")->UseManualTime()->Iterations(1)
    ->Unit(benchmark::kMicrosecond);
TG_CASE(chain32/fused/graph, BM_Chain32, true, true);
TG_CASE(chain32/fused/direct, BM_Chain32, true, false);
TG_CASE(chain32/unfused/graph, BM_Chain32, false, true);
TG_CASE(chain32/unfused/direct, BM_Chain32, false, false);

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == kFirstCallFlag) return firstCallChild();
  // Before anything opens the kernel cache: this process compiles into a directory of its own.
  const std::string cacheDir = freshDirectory();
  setenv("TG_CACHE_DIR", cacheDir.c_str(), 1);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::filesystem::remove_all(cacheDir);
  return 0;
}
