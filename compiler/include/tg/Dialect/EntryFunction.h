//===- EntryFunction.h - What tg needs of a function it compiles ----------===//
//
// The dialect's verifiers check tg ops; nothing in MLIR checks the func.func around them. A
// declaration, an unranked or i64 argument, a tensor of 2^64 elements returned untouched or an
// op of another dialect in the body verify as MLIR, and then break every later stage (buffer
// planning reads each argument's bytes, the interpreter and the emitters each op's shape
// rule). These checks are the front door: `compiler::compile`, `tgc`'s loader and every tg
// pass call them, so bad IR ends in a diagnostic, never in a crash or a wrong plan.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace tg::ir {

/// Checks that `func` is a function tg can compile or interpret, with an error on the first
/// violation: it has a body of one block; every argument and result type is a tg tensor
/// (typeOf: static shape, f32/f16/bf16/i32/i1, no encoding, at most 2^48 bytes); every op of
/// the body is a tg op or the func.return.
mlir::LogicalResult verifyTgFunction(mlir::func::FuncOp func);

/// The one func.func of `module`, checked by verifyTgFunction. An error on the module if it
/// holds anything else (no function, several, other ops).
mlir::FailureOr<mlir::func::FuncOp> entryFunction(mlir::ModuleOp module);

/// The one block of a function a pass walks op by op: null for a declaration (nothing to do),
/// failure (diagnosed) when `func` fails verifyTgFunction, since such walks need tg tensors and
/// tg ops only and tg-opt runs passes on any IR.
mlir::FailureOr<mlir::Block*> tgFunctionBody(mlir::func::FuncOp func);

}  // namespace tg::ir
