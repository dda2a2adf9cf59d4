//===- InterpretedProgram.cpp - The reference interpreter's program -------===//
#include "tg/Frontend/InterpretedProgram.h"

#include "tg/Frontend/TensorImpl.h"
#include "tg/Compiler/Context.h"
#include "tg/Dialect/SymbolicTypes.h"
#include "tg/Reference/Interpreter.h"

#include <algorithm>
#include <mutex>

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

namespace tg::detail {

namespace {

class InterpretedProgram : public Program {
 public:
  InterpretedProgram(OwningOpRef<ModuleOp> module, std::string ir)
      : module_(std::move(module)), ir_(std::move(ir)) {
    func_ = *module_->getOps<func::FuncOp>().begin();
    numResults_ = func_.getFunctionType().getNumResults();
  }

  void execute(const ProgramInputs& inputs, std::span<Tensor> results, bool,
               std::span<const int64_t> symbolValues) override {
    std::vector<ref::HostTensor> hosts;
    hosts.reserve(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Tensor& t = inputs[i];
      if (t.device() != Device::CPU)
        throw Error("jit: a captured tensor is on cuda but the function runs on the cpu; "
                    "create it on the cpu or move it with .to(tg::Device::CPU)");
      hosts.push_back(hostOf(t));
    }
    func::FuncOp func = func_;
    if (func->hasAttr(ir::kSymbolsAttr)) {
      // Compiled for ranges of sizes: the module at this call's sizes (the last one kept).
      if (!instance_ || !std::equal(symbolValues.begin(), symbolValues.end(), instanceValues_.begin(),
                                    instanceValues_.end())) {
        std::string error;
        std::lock_guard<std::mutex> lock(compiler::compileMutex());  // the shared context
        compiler::DiagnosticCollector diagnostics(*module_->getContext());
        OwningOpRef<ModuleOp> instance = ir::instantiateModule(*module_, symbolValues, error);
        if (!instance) throw Error("jit: the graph compiled for dynamic dims cannot run at these sizes: " + error);
        instance_ = std::move(instance);
        instanceValues_.assign(symbolValues.begin(), symbolValues.end());
        ++sizeChanges_;
      }
      func = *instance_->getOps<func::FuncOp>().begin();
    }
    std::vector<ref::HostTensor> values = ref::interpret(func, hosts);
    for (size_t i = 0; i < values.size() && i < results.size(); ++i)
      results[i] = wrapHost(std::move(values[i]));
  }

  size_t numResults() const override { return numResults_; }
  const std::string& ir() const override { return ir_; }
  size_t kernels() const override { return 0; }

  void describe(JitReport::Graph& info) const override {
    std::string error;
    std::optional<ir::Symbols> symbols = ir::symbolsOf(func_, error);
    if (!symbols) return;
    describeSymbols(symbols->names, symbols->min, symbols->max, instanceValues_, info);
    info.sizeChanges = sizeChanges_;
  }

 private:
  OwningOpRef<ModuleOp> module_;
  func::FuncOp func_;
  OwningOpRef<ModuleOp> instance_;  // a symbolic module at instanceValues_
  std::vector<int64_t> instanceValues_;
  uint64_t sizeChanges_ = 0;
  size_t numResults_ = 0;
  std::string ir_;
};

}  // namespace

std::unique_ptr<Program> makeInterpretedProgram(OwningOpRef<ModuleOp> module, std::string ir) {
  return std::make_unique<InterpretedProgram>(std::move(module), std::move(ir));
}

}  // namespace tg::detail
