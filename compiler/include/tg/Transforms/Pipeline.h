//===- Pipeline.h - tg's compilation pipeline, step by step ---------------===//
#pragma once

#include "tg/CodeGen/EmitPlan.h"
#include "tg/Runtime/Plan.h"
#include "tg/Support/Precision.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <functional>
#include <string>
#include <vector>

namespace tg::rt {
struct DeviceInfo;
}

namespace tg::compiler {

struct PipelineOptions {
  bool fuse = true;  ///< false: one kernel per op (the unfused baseline)
  /// Reductions over trailing dims join their producers and their broadcast-back consumers
  /// in row kernels (tg-fuse's fuse-reductions; EmitRow.cpp writes them). Off: each
  /// reduction is a kernel of its own (tgc --no-fuse-reductions).
  bool fuseReductions = true;
  /// softmax(modify(q @ k^T)) @ v with many query rows becomes one flash-attention kernel,
  /// with a few rows the split-key kernels where they take it (tg-fuse-attention, before the
  /// composites are decomposed; tgc --no-fuse-attention turns it off).
  bool fuseAttention = true;
  /// With fuseAttention, decode-sized attention the split-key kernel does not take goes to
  /// the cluster kernel (tgc --decode-attention). Off by default: on the H200 that kernel took
  /// 19 us for the decoder's 4 x [4 x 640] heads, more than the separate scores, softmax and
  /// p @ v kernels it replaces (benchmarks/RESULTS.md).
  bool decodeAttention = false;
  /// The target (arch, SM count), precision and tuning knobs, handed to the passes that need
  /// them and to code generation as they are.
  codegen::CodeGenOptions codegen;
};

/// The options every entry point starts from (the jit, tgc, tg-opt's tg-pipeline): code
/// generation for `device` (its arch and SM count; without one, sm_90a and 132 SMs) with
/// the tuning knobs of the environment, `fuse` and `precision`.
PipelineOptions pipelineOptionsFor(const rt::DeviceInfo* device, bool fuse = true,
                                   Precision precision = Precision::Auto);

/// What a compilation is for. Each target runs a prefix of the stage table.
enum class Target {
  /// The reference interpreter, op by op (the jit on CPU tensors): stage 1 only, so that
  /// results are bit-identical to eager execution.
  Reference,
  /// The reference interpreter on the fused graph, as the kernels order the work (`tgc run
  /// --device cpu`, the tests' fused references): stages 1-3.
  FusedReference,
  /// Kernels for the GPU: stages 1-5, then code generation (an rt::Plan).
  Cuda,
};

/// One numbered step of the pipeline: its name (as `tgc dump --stage` spells it), its passes
/// and the first target that runs it (the targets after it do too).
struct PipelineStage {
  std::string name;
  std::function<void(mlir::OpPassManager&)> addPasses;
  Target from = Target::Cuda;
};

/// Steps 1-5, IR to IR, in order (Pipeline.cpp lists them).
std::vector<PipelineStage> pipelineStages(const PipelineOptions& options);
/// The stages `target` runs, in order.
std::vector<PipelineStage> pipelineStages(const PipelineOptions& options, Target target);
/// All of steps 1-5 in one pass manager (tg-opt --tg-pipeline).
void buildPipeline(mlir::OpPassManager& pm, const PipelineOptions& options);

/// Runs `target`'s stages on `module` (holding one func.func) and, for Target::Cuda, code
/// generation (for the interpreter targets the result is an empty plan: the module itself is
/// what runs). `observe(stage, module)` is called after each IR step when given. Fails with
/// diagnostics on the module's context.
mlir::FailureOr<rt::Plan> compileToPlan(
    mlir::ModuleOp module, const PipelineOptions& options, Target target,
    const std::function<void(const std::string&, mlir::ModuleOp)>& observe = {});

/// Registers tg's passes and the `tg-pipeline` pass pipeline (for tg-opt).
void registerPasses();

}  // namespace tg::compiler
