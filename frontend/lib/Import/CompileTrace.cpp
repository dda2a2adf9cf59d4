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

#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

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
  }

  std::vector<Tensor> run(const std::vector<Tensor>& inputs) override {
    std::vector<ref::HostTensor> hosts;
    hosts.reserve(inputs.size());
    for (const Tensor& t : inputs) {
      if (t.device() != Device::CPU)
        throw Error("jit: a captured tensor is on cuda but the function runs on the cpu; "
                    "create it on the cpu or move it with .to(tg::Device::CPU)");
      hosts.push_back(hostOf(t));
    }
    std::vector<ref::HostTensor> results = ref::interpret(func_, hosts);
    std::vector<Tensor> outputs;
    outputs.reserve(results.size());
    for (ref::HostTensor& r : results) outputs.push_back(wrapHost(std::move(r)));
    return outputs;
  }

  const std::string& ir() const override { return ir_; }
  size_t kernels() const override { return 0; }

 private:
  OwningOpRef<ModuleOp> module_;
  func::FuncOp func_;
  std::string ir_;
};

/// Runs a Plan on the GPU: no host sync, results stay on the device.
class GpuProgram : public Program {
 public:
  GpuProgram(rt::Plan plan, rt::Gpu& gpu, std::string ir)
      : executor_(std::move(plan), gpu), ir_(std::move(ir)) {
    const rt::Plan& p = executor_.plan();
    for (size_t i = 0; i < p.outputs.size(); ++i)
      resultTypes_.push_back({p.outputDTypes[i], p.outputShapes[i]});
  }

  std::vector<Tensor> run(const std::vector<Tensor>& inputs) override {
    std::vector<std::shared_ptr<rt::DeviceBuffer>> buffers;
    buffers.reserve(inputs.size());
    for (const Tensor& t : inputs) {
      if (t.device() != Device::CUDA)
        throw Error("jit: a captured tensor is on the cpu but the function runs on cuda; "
                    "create it on cuda or move it with .to(tg::Device::CUDA)");
      buffers.push_back(t.impl().buffer);
    }
    std::vector<std::shared_ptr<rt::DeviceBuffer>> results = executor_.run(buffers);
    std::vector<Tensor> outputs;
    outputs.reserve(results.size());
    for (size_t i = 0; i < results.size(); ++i)
      outputs.push_back(wrapDevice(std::move(results[i]), resultTypes_[i]));
    return outputs;
  }

  const std::string& ir() const override { return ir_; }
  size_t kernels() const override { return executor_.plan().launches.size(); }

 private:
  rt::Executor executor_;
  std::string ir_;
  std::vector<graph::TensorType> resultTypes_;
};

compiler::PipelineOptions pipelineOptions(const JitOptions& options, rt::Gpu* gpu) {
  compiler::PipelineOptions p;
  p.fuse = options.fuse;
  p.precision = options.precision;
  if (gpu) {
    p.arch = gpu->info().arch();
    p.smCount = gpu->info().smCount;
  }
  return p;
}

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

  if (device == Device::CUDA || sink) {
    OwningOpRef<ModuleOp> copy = module->clone();
    rt::Plan plan = compiler::compile(*copy, pipelineOptions(options, gpu), sink,
                                      /*wantPtx=*/static_cast<bool>(sink));
    if (device == Device::CUDA)
      return std::make_unique<GpuProgram>(std::move(plan), *gpu, std::move(traced));
  }

  // CPU: the reference interpreter runs the canonicalized graph.
  compiler::DiagnosticCollector diagnostics(context);
  if (failed(verify(*module)))
    throw Error("internal error: the traced graph of '" + name + "' does not verify:\n" +
                    diagnostics.text(),
                diagnostics.firstErrorLoc());
  PassManager pm(&context);
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (failed(pm.run(*module)))
    throw Error("internal error: compiling '" + name + "' failed:\n" + diagnostics.text(),
                diagnostics.firstErrorLoc());
  return std::make_unique<InterpretedProgram>(std::move(module), std::move(traced));
}

}  // namespace tg::detail
