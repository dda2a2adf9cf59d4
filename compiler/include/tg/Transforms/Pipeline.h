//===- Pipeline.h - tg's compilation pipeline, step by step ---------------===//
#pragma once

#include "tg/CodeGen/Tuning.h"
#include "tg/Runtime/Plan.h"
#include "tg/Support/Precision.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <functional>
#include <string>
#include <vector>

namespace tg::compiler {

struct PipelineOptions {
  bool fuse = true;              ///< false: one kernel per op (the unfused baseline)
  std::string arch = "sm_90a";   ///< NVRTC target
  int smCount = 132;             ///< SMs of the target device (grid sizing)
  Precision precision = Precision::Auto;
  /// Testing and tuning knobs (Tuning.h); entry points fill it from tuningFromEnvironment().
  codegen::Tuning tuning;
};

/// One numbered step of the pipeline: its name (as `tgc dump --stage` spells it) and passes.
struct PipelineStage {
  std::string name;
  std::function<void(mlir::OpPassManager&)> addPasses;
};

/// Steps 1-5, IR to IR, in order (Pipeline.cpp lists them).
std::vector<PipelineStage> pipelineStages(const PipelineOptions& options);
/// All of steps 1-5 in one pass manager (tg-opt --tg-pipeline).
void buildPipeline(mlir::OpPassManager& pm, const PipelineOptions& options);

/// Runs steps 1-6 on `module` (holding one func.func): the IR steps, then code generation.
/// `observe(stage, module)` is called after each IR step when given. Fails with diagnostics
/// on the module's context.
mlir::FailureOr<rt::Plan> compileToPlan(
    mlir::ModuleOp module, const PipelineOptions& options,
    const std::function<void(const std::string&, mlir::ModuleOp)>& observe = {});

/// Registers tg's passes and the `tg-pipeline` pass pipeline (for tg-opt).
void registerPasses();

}  // namespace tg::compiler
