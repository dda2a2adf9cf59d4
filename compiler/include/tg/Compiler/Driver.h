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
  /// "traced", a pipeline stage name ("canonicalize", "fuse", ...), "remarks", "plan"
  /// (the rt::Plan: kernels, buffers, launches), "cuda", "ptx" or "cubin" (binary).
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

/// Compiles `module` (one func.func of tg ops) in place for `target`: the stages of the
/// pipeline's table that the target runs and, for Target::Cuda, code generation, whose plan
/// is returned (an empty plan for the interpreter targets, which run the module). Throws
/// tg::Error on failure. When `sink` is given, every artifact goes to it; `wantPtx` also
/// compiles each kernel with NVRTC (with the options of the kernels that run) and passes on
/// its PTX and cubin.
rt::Plan compile(mlir::ModuleOp module, const PipelineOptions& options,
                 Target target = Target::Cuda, const ArtifactSink& sink = {},
                 bool wantPtx = false);

/// What a directorySink could not write.
struct DumpFailures {
  size_t files = 0;   ///< artifacts handed to the sink
  size_t failed = 0;  ///< of those, files that could not be written
  std::string first;  ///< the first failure ("<file>: write error: No space left on device")
};

/// Writes each artifact into directory `dir` (created when missing) as
/// "<prefix>.<fileName>", through tg::writeFileAtomically (a name tg owns: temporary file,
/// checked writes, rename). Never throws, and a full disk or `ulimit -f` never kills the
/// process. With `failures`, which must outlive the sink, failures are counted there for the
/// caller to report (`tgc dump --out-dir` exits 1); without it (TG_DUMP in a user's program),
/// the first failure in `dir` is reported on stderr, once per directory and process.
ArtifactSink directorySink(const std::string& dir, const std::string& prefix,
                           DumpFailures* failures = nullptr);

}  // namespace tg::compiler
