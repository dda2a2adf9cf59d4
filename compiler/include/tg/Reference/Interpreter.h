//===- Interpreter.h - Runs any tg function on the CPU --------------------===//
//
// The oracle for every test and the CPU fallback: evaluates a func.func of tg ops (before or
// after fusion: tg.fusion regions are evaluated op by op) with the reference kernels of
// RefKernels.h.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Reference/HostTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <span>
#include <vector>

namespace tg::ref {

struct InterpretOptions {
  /// Evaluate elementwise tg.fusion regions as the generated kernels do: bf16/f16 values stay
  /// in f32 inside the region and are rounded only where they leave it (tg.yield) or are cast
  /// explicitly. Off: every op rounds its result to its dtype (the op-by-op semantics).
  bool f32InsideFusions = false;
};

/// Evaluates `func` on `args` and returns its results. Throws tg::Error when the arguments do
/// not match the signature or the function holds an op the interpreter cannot run.
std::vector<HostTensor> interpret(mlir::func::FuncOp func, std::span<const HostTensor> args,
                                  const InterpretOptions& options = {});

}  // namespace tg::ref
