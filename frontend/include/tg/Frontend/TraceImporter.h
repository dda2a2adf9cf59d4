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

struct SymbolicTrace;  // SymbolicTrace.h

/// Imports `trace` as `func.func @funcName` inside a new module.
mlir::OwningOpRef<mlir::ModuleOp> importTrace(const Trace& trace, mlir::MLIRContext& context,
                                              llvm::StringRef funcName);

/// Imports a trace whose sizes are polynomials of the function's symbols (SymbolicTrace.h):
/// the function lists its symbols (`tg.symbols`), symbolic dims are `?` with a #tg.sizes
/// encoding (tg/Dialect/SymbolicTypes.h), a splat constant of a symbolic shape is a scalar
/// broadcast to it, slice bounds and update offsets that depend on symbols are `?` with their
/// sizes beside, and a splat whose value is a size (`pos + T`) a tg.size. Null, with the
/// reason in `whyNot`, where the module does not verify (the verifier's messages).
mlir::OwningOpRef<mlir::ModuleOp> importSymbolicTrace(const SymbolicTrace& trace, mlir::MLIRContext& context,
                                                      llvm::StringRef funcName, std::string& whyNot);

}  // namespace tg::detail
