//===- TraceImporter.h - Trace -> tg dialect module (internal) ------------===//
//
// Builds one func.func of tg ops from a recorded Trace. Every op carries the user's source
// location (file:line, inside a NameLoc with the function), so verifier errors and fusion
// remarks point at the user's code. Only frontend/lib/Import and lib/Backend (compileTrace)
// include this (it needs MLIR).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Frontend/Tracer.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace tg::detail {

/// Imports `trace` as `func.func @funcName` inside a new module.
mlir::OwningOpRef<mlir::ModuleOp> importTrace(const Trace& trace, mlir::MLIRContext& context,
                                              llvm::StringRef funcName);

}  // namespace tg::detail
