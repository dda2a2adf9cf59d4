//===- CompileTrace.cpp - From a Trace to a runnable Program --------------===//
//
// Imports the trace, verifies it, runs the pipeline and wraps the result. Today's backend is
// the reference interpreter (CPU); the GPU backend plugs in here as another Program.
//
//===----------------------------------------------------------------------===//
#include "tg/Compiler/Context.h"
#include "tg/Frontend/Program.h"
#include "tg/Frontend/TraceImporter.h"
#include "tg/Reference/Interpreter.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

namespace tg::detail {

namespace {

std::string printModule(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

/// Runs a compiled module with the reference interpreter.
class InterpretedProgram : public Program {
 public:
  InterpretedProgram(OwningOpRef<ModuleOp> module, std::string ir, std::vector<Tensor> captures)
      : module_(std::move(module)), ir_(std::move(ir)), captures_(std::move(captures)) {
    func_ = *module_->getOps<func::FuncOp>().begin();
  }

  std::vector<Tensor> run(const std::vector<Tensor>& args) override {
    std::vector<ref::HostTensor> hosts;
    hosts.reserve(args.size() + captures_.size());
    for (const Tensor& t : args) hosts.push_back(hostOf(t));
    for (const Tensor& t : captures_) hosts.push_back(hostOf(t));
    std::vector<ref::HostTensor> results = ref::interpret(func_, hosts);
    std::vector<Tensor> outputs;
    outputs.reserve(results.size());
    for (ref::HostTensor& r : results) outputs.push_back(wrapHost(std::move(r)));
    return outputs;
  }

  const std::string& ir() const override { return ir_; }

 private:
  OwningOpRef<ModuleOp> module_;
  func::FuncOp func_;
  std::string ir_;
  std::vector<Tensor> captures_;
};

}  // namespace

std::unique_ptr<Program> compileTrace(const Trace& trace, const JitOptions& options,
                                      Device device, const std::string& name) {
  // One compilation at a time: the context's diagnostic handler is shared.
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  MLIRContext& context = compiler::sharedContext();
  compiler::DiagnosticCollector diagnostics(context);

  OwningOpRef<ModuleOp> module = importTrace(trace, context, name);
  if (failed(verify(*module)))
    throw Error("internal error: the traced graph of '" + name + "' does not verify:\n" +
                    diagnostics.text(),
                diagnostics.firstErrorLoc());
  std::string traced = printModule(*module);

  PassManager pm(&context);
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (failed(pm.run(*module)))
    throw Error("internal error: compiling '" + name + "' failed:\n" + diagnostics.text(),
                diagnostics.firstErrorLoc());

  if (device != Device::CPU)
    throw Error("jit: the CUDA backend is not available in this build");
  (void)options;
  return std::make_unique<InterpretedProgram>(std::move(module), std::move(traced),
                                              trace.captures);
}

}  // namespace tg::detail
