//===- Driver.h - Compile a tg module to a Plan, with every stage visible --===//
//
// The one entry point the jit, `tgc dump` and TG_DUMP share: runs the pipeline, turns failures
// into a tg::Error carrying MLIR's diagnostics (at the user's source line), and hands each
// intermediate artifact to a sink: the IR after every step, the fusion remarks, the plan, each
// kernel's CUDA C++ and (on request) its PTX.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Runtime/Plan.h"
#include "tg/Transforms/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <string>

namespace tg::compiler {

struct Artifact {
  /// "traced", a pipeline stage name ("canonicalize", "fuse", ...), "remarks", "schedule"
  /// (the kernel plan), "cuda", "ptx" or "cubin" (binary).
  std::string stage;
  /// A file-name-friendly name: "3-fuse.mlir", "tg_e0_mul_add.cu", ...
  std::string fileName;
  std::string text;
};

using ArtifactSink = std::function<void(const Artifact&)>;

/// The module as text, large constants elided (dumps, JitFunction::ir()).
std::string printModule(mlir::ModuleOp module);

/// Every stage name, in order, as `tgc dump --stage` accepts them.
const std::vector<std::string>& artifactStages();

/// Compiles `module` (one func.func of tg ops). Throws tg::Error on failure. When `sink` is
/// given, every artifact goes to it; `wantPtx` also compiles each kernel with NVRTC and
/// passes on its PTX and cubin.
rt::Plan compile(mlir::ModuleOp module, const PipelineOptions& options,
                 const ArtifactSink& sink = {}, bool wantPtx = false);

/// Writes the artifacts of compiling `module` into directory `dir` (TG_DUMP); never throws
/// (a dump that cannot be written is reported on stderr once).
ArtifactSink directorySink(const std::string& dir, const std::string& prefix);

}  // namespace tg::compiler
