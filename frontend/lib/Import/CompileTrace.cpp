//===- CompileTrace.cpp - From a Trace to a runnable Program --------------===//
//
// Imports the trace, then either compiles it through the full pipeline into a Plan that the
// runtime's Executor runs on the GPU, or (CPU tensors) keeps the canonicalized graph for the
// reference interpreter. TG_DUMP=dir writes every stage of every compilation there.
//
//===----------------------------------------------------------------------===//
#include "tg/Compiler/Context.h"
#include "tg/Compiler/Driver.h"
#include "tg/Frontend/Program.h"
#include "tg/Frontend/TraceImporter.h"
#include "tg/Reference/Interpreter.h"
#include "tg/Runtime/Executor.h"


#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <mutex>

using namespace mlir;

namespace tg::detail {

namespace {


/// Runs a compiled module with the reference interpreter (CPU tensors).
class InterpretedProgram : public Program {
 public:
  InterpretedProgram(OwningOpRef<ModuleOp> module, std::string ir)
      : module_(std::move(module)), ir_(std::move(ir)) {
    func_ = *module_->getOps<func::FuncOp>().begin();
    numResults_ = func_.getFunctionType().getNumResults();
  }

  void execute(const ProgramInputs& inputs, std::span<Tensor> results, bool) override {
    std::vector<ref::HostTensor> hosts;
    hosts.reserve(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Tensor& t = inputs[i];
      if (t.device() != Device::CPU)
        throw Error("jit: a captured tensor is on cuda but the function runs on the cpu; "
                    "create it on the cpu or move it with .to(tg::Device::CPU)");
      hosts.push_back(hostOf(t));
    }
    std::vector<ref::HostTensor> values = ref::interpret(func_, hosts);
    for (size_t i = 0; i < values.size() && i < results.size(); ++i)
      results[i] = wrapHost(std::move(values[i]));
  }

  size_t numResults() const override { return numResults_; }
  const std::string& ir() const override { return ir_; }
  size_t kernels() const override { return 0; }

 private:
  OwningOpRef<ModuleOp> module_;
  func::FuncOp func_;
  size_t numResults_ = 0;
  std::string ir_;
};

/// Runs a Plan on the GPU: no host sync, results stay on the device.
class GpuProgram : public Program {
 public:
  GpuProgram(rt::Plan plan, rt::Gpu& gpu, std::string ir, bool cudaGraphs)
      : executor_(std::move(plan), gpu), ir_(std::move(ir)), cudaGraphs_(cudaGraphs) {
    const rt::Plan& p = executor_.plan();
    for (size_t i = 0; i < p.outputs.size(); ++i)
      resultTypes_.push_back({p.outputDTypes[i], p.outputShapes[i]});
  }

  void execute(const ProgramInputs& inputs, std::span<Tensor> results, bool replay) override {
    // buffers_ and resultBuffers_ keep their storage between calls: the per-call path
    // allocates only the result buffers and tensors.
    buffers_.clear();
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Tensor& t = inputs[i];
      if (t.device() != Device::CUDA)
        throw Error("jit: a captured tensor is on the cpu but the function runs on cuda; "
                    "create it on cuda or move it with .to(tg::Device::CUDA)");
      buffers_.push_back(t.impl().buffer);
    }
    try {
      executor_.run(buffers_, resultBuffers_, replay && cudaGraphs_);
    } catch (...) {
      buffers_.clear();
      throw;
    }
    buffers_.clear();  // keep no input alive past the call
    for (size_t i = 0; i < resultBuffers_.size() && i < results.size(); ++i)
      results[i] = wrapDevice(std::move(resultBuffers_[i]), resultTypes_[i]);
  }

  size_t numResults() const override { return resultTypes_.size(); }
  const std::string& ir() const override { return ir_; }
  size_t kernels() const override { return executor_.plan().launches.size(); }

  void describe(JitReport::Graph& info) const override {
    info.cudaGraph = executor_.usesCudaGraph();
    info.cudaGraphLaunches = executor_.cudaGraphLaunches();
    info.cudaGraphParameterUpdates = executor_.cudaGraphParameterUpdates();
    info.peakDeviceBytes = executor_.peakDeviceBytes();
    if (!cudaGraphs_)
      info.noCudaGraphReason = "JitOptions::cuda_graphs is false";
    else if (!executor_.cudaGraphFailure().empty())
      info.noCudaGraphReason = executor_.cudaGraphFailure();
  }

 private:
  rt::Executor executor_;
  std::string ir_;
  bool cudaGraphs_;
  std::vector<graph::TensorType> resultTypes_;
  std::vector<std::shared_ptr<rt::DeviceBuffer>> buffers_, resultBuffers_;
};

}  // namespace

std::string importedIr(const Trace& trace, const std::string& name) {
  std::lock_guard<std::mutex> lock(compiler::compileMutex());
  MLIRContext& context = compiler::sharedContext();
  OwningOpRef<ModuleOp> module = importTrace(trace, context, name);
  return compiler::printModule(*module);
}

std::unique_ptr<Program> compileTrace(const Trace& trace, const JitOptions& options,
                                      Device device, const std::string& name) {
  std::lock_guard<std::mutex> lock(compiler::compileMutex());
  MLIRContext& context = compiler::sharedContext();
  OwningOpRef<ModuleOp> module = importTrace(trace, context, name);
  std::string traced = compiler::printModule(*module);
  rt::Gpu* gpu = device == Device::CUDA ? rt::Gpu::get() : nullptr;
  if (device == Device::CUDA && !gpu)
    throw Error("jit: '" + name + "' runs on cuda but no CUDA device is available (" +
                rt::Gpu::unavailableReason() + ")");

  compiler::ArtifactSink sink;
  if (const char* dir = std::getenv("TG_DUMP"); dir && *dir)
    sink = compiler::directorySink(dir, name);

  // JitOptions -> PipelineOptions: the only translation (the target comes from the device).
  const compiler::PipelineOptions pipeline =
      compiler::pipelineOptionsFor(gpu ? &gpu->info() : nullptr, options.fuse, options.precision);
  if (device == Device::CUDA || sink) {
    // A CPU function under TG_DUMP: its kernels are dumped as the GPU would compile them.
    OwningOpRef<ModuleOp> copy = module->clone();
    rt::Plan plan = compiler::compile(*copy, pipeline, compiler::Target::Cuda, sink,
                                      /*wantPtx=*/static_cast<bool>(sink));
    if (device == Device::CUDA)
      return std::make_unique<GpuProgram>(std::move(plan), *gpu, std::move(traced),
                                          options.cuda_graphs);
  }
  // CPU: the reference interpreter runs the canonicalized graph.
  compiler::compile(*module, pipeline, compiler::Target::Reference);
  return std::make_unique<InterpretedProgram>(std::move(module), std::move(traced));
}

}  // namespace tg::detail
