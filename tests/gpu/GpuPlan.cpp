//===- GpuPlan.cpp - The compiled plan of traced IR, for the GPU tests ----===//
#include "GpuPlan.h"

#include "tg/CodeGen/Tuning.h"
#include "tg/Compiler/Context.h"
#include "tg/Compiler/Driver.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <mutex>
#include <stdexcept>

namespace tggpu {

tg::rt::Plan planFor(const std::string& ir, tg::rt::Gpu& gpu) {
  std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
  mlir::MLIRContext& context = tg::compiler::sharedContext();
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(ir, &context);
  if (!module) throw std::runtime_error("the traced IR does not parse:\n" + ir);
  // As the jit compiles (TG_MATMUL_PATH and the other knobs included).
  return tg::compiler::compile(*module, tg::compiler::pipelineOptionsFor(&gpu.info()));
}

}  // namespace tggpu
