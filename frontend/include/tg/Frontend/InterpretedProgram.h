//===- InterpretedProgram.h - The reference interpreter's program (internal) ===//
//
// A compiled module run by the reference interpreter on CPU tensors: the canonicalized graph
// for the jit (bit-identical to eager), the fused graph for `tgc run --device cpu`. Includes
// MLIR: only frontend/lib/Backend and tools include it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Frontend/Program.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <memory>
#include <string>

namespace tg::detail {

/// Runs the one function of `module`; `ir` is what Program::ir() returns.
std::unique_ptr<Program> makeInterpretedProgram(mlir::OwningOpRef<mlir::ModuleOp> module,
                                                std::string ir);

}  // namespace tg::detail
