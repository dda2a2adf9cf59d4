//===- EmitPlan.h - Step 6: CUDA C++ for every kernel, and the runtime Plan ===//
#pragma once

#include "tg/CodeGen/Tuning.h"
#include "tg/Runtime/Plan.h"
#include "tg/Support/Precision.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace tg::codegen {

struct CodeGenOptions {
  std::string arch = "sm_90a";  ///< NVRTC target (decides which templates are legal).
  int smCount = 132;            ///< Grids are sized from this (H200: 132).
  Precision precision = Precision::Auto;
  Tuning tuning;  ///< launch-shape knobs (defaults: the measured best)
};

/// Generates one kernel per tg.fusion of `func` (which the tg-assign-buffers pass has annotated) and
/// the launches and buffers that run them. Fails with a diagnostic on unsupported IR.
mlir::FailureOr<rt::Plan> emitPlan(mlir::func::FuncOp func, const CodeGenOptions& options);

/// The kernel prelude and skeletons, as embedded at build time (for tests and dumps).
const char* preludeSource();

}  // namespace tg::codegen
