//===- GpuProgram.cpp - The GPU backend's program -------------------------===//
#include "tg/Frontend/GpuProgram.h"

#include "tg/Frontend/TensorImpl.h"
#include "tg/Runtime/Executor.h"

#include <algorithm>
#include <vector>

namespace tg::detail {

namespace {

class GpuProgram : public Program {
 public:
  GpuProgram(rt::Plan plan, rt::Gpu& gpu, std::string ir, bool cudaGraphs, bool profile)
      : executor_(std::move(plan), gpu), gpu_(gpu), ir_(std::move(ir)), cudaGraphs_(cudaGraphs) {
    if (profile) executor_.enableProfiling();
    const rt::Plan& p = executor_.plan();
    for (size_t i = 0; i < p.outputs.size(); ++i)
      resultTypes_.push_back({p.outputDTypes[i], p.outputShapes[i]});
  }

  void execute(const ProgramInputs& inputs, std::span<Tensor> results, bool replay,
               std::span<const int64_t> symbolValues) override {
    // buffers_ and resultBuffers_ keep their storage between calls: the per-call path
    // allocates only the result buffers and tensors.
    buffers_.clear();
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Tensor& t = inputs[i];
      if (t.device() != Device::CUDA)
        throw Error("jit: a captured tensor is on the cpu but the function runs on cuda; "
                    "create it on cuda or move it with .to(tg::Device::CUDA)");
      checkNotDonated(t, "jit", SourceLoc{});
      buffers_.push_back(t.impl().buffer);
    }
    // A donated argument the program writes in place must be its caller's alone: if another
    // tensor shares the memory (or the same tensor is passed twice), the program writes a copy.
    const rt::Plan& plan = executor_.plan();
    for (int k : plan.writtenInputs) {
      std::shared_ptr<rt::DeviceBuffer>& b = buffers_[static_cast<size_t>(k)];
      if (b.use_count() <= 2) continue;  // the argument's tensor and buffers_ itself
      const size_t bytes = plan.buffers[static_cast<size_t>(k)].bytes;
      std::shared_ptr<rt::DeviceBuffer> copy = gpu_.allocate(bytes);
      gpu_.copyOnDevice(copy->ptr(), b->ptr(), bytes);
      b = std::move(copy);
    }
    try {
      executor_.run(buffers_, resultBuffers_, replay && cudaGraphs_, symbolValues);
    } catch (...) {
      buffers_.clear();
      throw;
    }
    buffers_.clear();  // keep no input alive past the call
    const bool symbolic = !plan.symbols.empty();
    for (size_t i = 0; i < resultBuffers_.size() && i < results.size(); ++i)
      results[i] = wrapDevice(std::move(resultBuffers_[i]),
                              symbolic ? graph::TensorType{resultTypes_[i].dtype, executor_.sizes().outputShapes[i]}
                                       : resultTypes_[i]);
  }

  size_t numResults() const override { return resultTypes_.size(); }
  const std::string& ir() const override { return ir_; }
  size_t kernels() const override { return executor_.plan().launches.size(); }

  void describe(JitReport::Graph& info) const override {
    info.cudaGraph = executor_.usesCudaGraph();
    info.cudaGraphLaunches = executor_.cudaGraphLaunches();
    info.cudaGraphParameterUpdates = executor_.cudaGraphParameterUpdates();
    info.peakDeviceBytes = executor_.peakDeviceBytes();
    info.sizeChanges = executor_.sizeChanges();
    const rt::Plan& plan = executor_.plan();
    std::vector<std::string> names;
    std::vector<int64_t> min, max;
    for (const rt::PlanSymbol& sym : plan.symbols) {
      names.push_back(sym.name);
      min.push_back(sym.min);
      max.push_back(sym.max);
    }
    describeSymbols(names, min, max, executor_.sizes().values, info);
    info.sizeVariants.clear();
    for (size_t l = 0; l < plan.launches.size(); ++l)
      for (size_t v = 0; v < plan.launches[l].variants.size(); ++v) {
        const rt::PlanLaunch& variant = plan.launches[l].variants[v];
        const bool taken = l < executor_.sizes().variants.size() && executor_.sizes().variants[l] == static_cast<int>(v);
        info.sizeVariants.push_back(plan.launches[l].fusion + ": where " + variant.guard.str(names) +
                                    " <= " + std::to_string(variant.upTo) + ", " + variant.why +
                                    (taken ? " (taken at the last run)" : ""));
      }
    const rt::KernelCache::Stats& k = executor_.kernelStats();
    info.distinctKernels = plan.kernels.size();
    info.kernelsCompiled = k.misses;
    info.kernelsFromDisk = k.diskHits;
    info.kernelsInMemory = k.hits;
    info.nvrtcMs = k.compileMs;
    info.updates = plan.updates;
    describeProfile(info);
    if (executor_.profiling())
      info.noCudaGraphReason = "profiling (JitOptions::profile or TG_PROFILE=1) times each launch";
    else if (!cudaGraphs_)
      info.noCudaGraphReason = "JitOptions::cuda_graphs is false";
    else if (!executor_.cudaGraphFailure().empty())
      info.noCudaGraphReason = executor_.cudaGraphFailure();
  }

 private:
  /// The launches' times by distinct kernel, slowest first.
  void describeProfile(JitReport::Graph& info) const {
    if (!executor_.profiling()) return;
    const rt::Executor::Profile& prof = executor_.profile();
    const rt::Plan& plan = executor_.plan();
    info.profiledRuns = prof.runs;
    std::vector<JitReport::Graph::KernelTime> byKernel(plan.kernels.size());
    for (size_t l = 0; l < plan.launches.size(); ++l) {
      const size_t k = static_cast<size_t>(plan.launches[l].kernel);
      JitReport::Graph::KernelTime& t = byKernel[k];
      t.kernel = plan.kernels[k].name;
      t.what = plan.kernels[k].summary;
      ++t.launches;
      if (prof.runs) t.usPerRun += 1000.0 * prof.ms[l] / static_cast<double>(prof.runs);
    }
    std::erase_if(byKernel, [](const JitReport::Graph::KernelTime& t) { return t.launches == 0; });
    std::stable_sort(byKernel.begin(), byKernel.end(),
                     [](const auto& a, const auto& b) { return a.usPerRun > b.usPerRun; });
    info.profile = std::move(byKernel);
  }

  rt::Executor executor_;
  rt::Gpu& gpu_;
  std::string ir_;
  bool cudaGraphs_;
  std::vector<graph::TensorType> resultTypes_;
  std::vector<std::shared_ptr<rt::DeviceBuffer>> buffers_, resultBuffers_;
};

}  // namespace

std::unique_ptr<Program> makeGpuProgram(rt::Plan plan, rt::Gpu& gpu, std::string ir,
                                        bool cudaGraphs, bool profile) {
  return std::make_unique<GpuProgram>(std::move(plan), gpu, std::move(ir), cudaGraphs, profile);
}

}  // namespace tg::detail
