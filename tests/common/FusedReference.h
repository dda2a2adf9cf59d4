//===- FusedReference.h - The pipeline up to fusion, for reference checks ---===//
//
// Header-only (tg_test_common uses the public API only): the tests that interpret the fused
// graph (FusionDifferentialTest, tg_random_programs) include it and link the compiler.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Compiler/Driver.h"
#include "tg/Support/Error.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace tgtest {

/// Runs the pipeline's stages up to and including "fuse" (Target::FusedReference) on `module`
/// with fusion on or off. Returns "" on success, the error's text on failure.
inline std::string runUpToFuse(mlir::ModuleOp module, bool fuse, bool fuseReductions = false,
                               bool fuseAttention = false) {
  tg::compiler::PipelineOptions options;
  options.fuse = fuse;
  options.fuseReductions = fuseReductions;
  options.fuseAttention = options.decodeAttention = fuseAttention;
  try {
    tg::compiler::compile(module, options, tg::compiler::Target::FusedReference);
  } catch (const tg::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace tgtest
