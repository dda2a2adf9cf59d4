//===- InterpretedProgram.cpp - The reference interpreter's program -------===//
#include "tg/Frontend/InterpretedProgram.h"

#include "tg/Frontend/TensorImpl.h"
#include "tg/Reference/Interpreter.h"

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

}  // namespace

std::unique_ptr<Program> makeInterpretedProgram(OwningOpRef<ModuleOp> module, std::string ir) {
  return std::make_unique<InterpretedProgram>(std::move(module), std::move(ir));
}

}  // namespace tg::detail
