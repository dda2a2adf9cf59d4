//===- Pipeline.cpp - tg's pipeline: one numbered list --------------------===//
//
//  1. canonicalize + cse         fold identities and splats, share equal subexpressions
//  2. fuse attention             softmax(modify(q @ k^T)) @ v -> one attention kernel (decode-sized)
//     decompose composites       softmax, layer_norm -> reductions + elementwise ops
//  3. fuse                       elementwise groups -> tg.fusion kernels (remarks for refusals)
//  4. select-matmul              choose each matmul's kernel path (wgmma, mma_sync, simt) and tile
//  5. assign-buffers             kernel names, buffers by liveness
//  6. emit                       CUDA C++ per kernel + launches + buffers = the rt::Plan
//
//===----------------------------------------------------------------------===//
#include "tg/Transforms/Pipeline.h"

#include "tg/CodeGen/EmitPlan.h"
#include "tg/Runtime/Gpu.h"
#include "tg/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace tg::compiler {

PipelineOptions pipelineOptionsFor(const rt::DeviceInfo* device, bool fuse, Precision precision) {
  PipelineOptions p;
  p.fuse = fuse;
  p.codegen.precision = precision;
  p.codegen.tuning = codegen::tuningFromEnvironment();
  if (device) {
    p.codegen.arch = device->arch();
    p.codegen.smCount = device->smCount;
  }
  return p;
}

std::vector<PipelineStage> pipelineStages(const PipelineOptions& o) {
  const codegen::CodeGenOptions& cg = o.codegen;
  return {
      {"canonicalize",
       [](OpPassManager& pm) {
         pm.addPass(createCanonicalizerPass());
         pm.addPass(createCSEPass());
       },
       Target::Reference},
      {"decompose",
       [o](OpPassManager& pm) {
         if (o.fuse && o.fuseAttention) {
           TgFuseAttentionOptions attention;
           attention.arch = o.codegen.arch;
           attention.maxCluster = o.codegen.tuning.attentionCluster;
           attention.decode = o.decodeAttention;
           pm.addNestedPass<func::FuncOp>(createTgFuseAttention(attention));
         }
         pm.addNestedPass<func::FuncOp>(createTgDecomposeComposites());
         pm.addPass(createCanonicalizerPass());
         pm.addPass(createCSEPass());
       },
       Target::FusedReference},
      {"fuse",
       [o](OpPassManager& pm) {
         TgFuseElementwiseOptions fuse;
         fuse.fuse = o.fuse;
         fuse.fuseReductions = o.fuseReductions;
         pm.addNestedPass<func::FuncOp>(createTgFuseElementwise(fuse));
       },
       Target::FusedReference},
      {"select-matmul",
       [cg](OpPassManager& pm) {
         TgSelectMatmulOptions lower;
         lower.arch = cg.arch;
         // TF32 multiplies f32 matmuls with 10-bit mantissas; Accurate keeps them in f32.
         lower.tf32 = cg.precision != Precision::Accurate;
         lower.forcePath = cg.tuning.matmulPath;
         lower.forceSchedule = cg.tuning.gemmSchedule;
         pm.addNestedPass<func::FuncOp>(createTgSelectMatmul(lower));
       },
       Target::Cuda},
      {"assign-buffers", [](OpPassManager& pm) { pm.addNestedPass<func::FuncOp>(createTgAssignBuffers()); },
       Target::Cuda},
  };
}

std::vector<PipelineStage> pipelineStages(const PipelineOptions& options, Target target) {
  std::vector<PipelineStage> stages;
  for (PipelineStage& stage : pipelineStages(options))
    if (static_cast<int>(stage.from) <= static_cast<int>(target)) stages.push_back(std::move(stage));
  return stages;
}

void buildPipeline(OpPassManager& pm, const PipelineOptions& options) {
  for (const PipelineStage& stage : pipelineStages(options)) stage.addPasses(pm);
}

FailureOr<rt::Plan> compileToPlan(ModuleOp module, const PipelineOptions& options, Target target,
                                  const std::function<void(const std::string&, ModuleOp)>& observe) {
  for (const PipelineStage& stage : pipelineStages(options, target)) {
    PassManager pm(module.getContext());
    // The input was verified (Driver.cpp) and the passes keep the IR valid; verifying after
    // each of the 8 passes took about a third of a large graph's compile time. The result is
    // verified once, below, so that a pass that breaks the IR is still an error, not bad code
    // (tg-opt and the lit tests verify after every pass).
    pm.enableVerifier(false);
    stage.addPasses(pm);
    if (failed(pm.run(module))) return failure();
    if (observe) observe(stage.name, module);
  }
  if (failed(verify(module))) return failure();
  auto funcs = module.getOps<func::FuncOp>();
  if (std::distance(funcs.begin(), funcs.end()) != 1)
    return module.emitError("tg compiles modules holding exactly one function");
  if (target != Target::Cuda) return rt::Plan{};
  return codegen::emitPlan(*funcs.begin(), options.codegen);
}

void registerPasses() {
  tg::registerTgPasses();
  PassPipelineRegistration<>("tg-pipeline", "tg's steps 1-5 (IR to planned kernels)",
                             [](OpPassManager& pm) {
                               buildPipeline(pm, pipelineOptionsFor(nullptr));
                             });
}

}  // namespace tg::compiler
