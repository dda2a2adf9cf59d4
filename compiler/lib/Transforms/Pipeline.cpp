//===- Pipeline.cpp - tg's pipeline: one numbered list --------------------===//
//
//  1. canonicalize + cse         fold identities and splats, share equal subexpressions
//  2. decompose composites       softmax, layer_norm -> reductions + elementwise ops
//  3. fuse                       elementwise groups -> tg.fusion kernels (remarks for refusals)
//  4. lower matmul               choose each matmul's path (wgmma, mma_sync, simt) and tile
//  5. plan                       kernel names, buffers by liveness
//  6. emit                       CUDA C++ per kernel + launches + buffers = rt::Plan
//
//===----------------------------------------------------------------------===//
#include "tg/Transforms/Pipeline.h"

#include "tg/CodeGen/EmitPlan.h"
#include "tg/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace tg::compiler {

std::vector<PipelineStage> pipelineStages(const PipelineOptions& o) {
  return {
      {"canonicalize",
       [](OpPassManager& pm) {
         pm.addPass(createCanonicalizerPass());
         pm.addPass(createCSEPass());
       }},
      {"decompose",
       [](OpPassManager& pm) {
         pm.addNestedPass<func::FuncOp>(createTgDecomposeComposites());
         pm.addPass(createCanonicalizerPass());
         pm.addPass(createCSEPass());
       }},
      {"fuse",
       [o](OpPassManager& pm) {
         TgFuseElementwiseOptions fuse;
         fuse.fuse = o.fuse;
         pm.addNestedPass<func::FuncOp>(createTgFuseElementwise(fuse));
       }},
      {"lower-matmul",
       [o](OpPassManager& pm) {
         TgLowerMatmulOptions lower;
         lower.arch = o.arch;
         // TF32 multiplies f32 matmuls with 10-bit mantissas; Accurate keeps them in f32.
         lower.tf32 = o.precision != Precision::Accurate;
         lower.forcePath = o.tuning.matmulPath;
         lower.forceSchedule = o.tuning.gemmSchedule;
         pm.addNestedPass<func::FuncOp>(createTgLowerMatmul(lower));
       }},
      {"plan", [](OpPassManager& pm) { pm.addNestedPass<func::FuncOp>(createTgPlanKernels()); }},
  };
}

void buildPipeline(OpPassManager& pm, const PipelineOptions& options) {
  for (const PipelineStage& stage : pipelineStages(options)) stage.addPasses(pm);
}

FailureOr<rt::Plan> compileToPlan(ModuleOp module, const PipelineOptions& options,
                                  const std::function<void(const std::string&, ModuleOp)>& observe) {
  for (const PipelineStage& stage : pipelineStages(options)) {
    PassManager pm(module.getContext());
    stage.addPasses(pm);
    if (failed(pm.run(module))) return failure();
    if (observe) observe(stage.name, module);
  }
  auto funcs = module.getOps<func::FuncOp>();
  if (std::distance(funcs.begin(), funcs.end()) != 1)
    return module.emitError("tg compiles modules holding exactly one function");
  codegen::CodeGenOptions cg;
  cg.arch = options.arch;
  cg.smCount = options.smCount;
  cg.precision = options.precision;
  cg.tuning = options.tuning;
  return codegen::emitPlan(*funcs.begin(), cg);
}

void registerPasses() {
  tg::registerTgPasses();
  PassPipelineRegistration<>("tg-pipeline", "tg's steps 1-5 (IR to planned kernels)",
                             [](OpPassManager& pm) {
                               PipelineOptions options;
                               options.tuning = codegen::tuningFromEnvironment();
                               buildPipeline(pm, options);
                             });
}

}  // namespace tg::compiler
