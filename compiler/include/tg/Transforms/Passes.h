//===- Passes.h - tg's passes and pipeline --------------------------------===//
#pragma once

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include "tg/Dialect/TgOps.h"

namespace tg {

#define GEN_PASS_DECL
#include "tg/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tg/Transforms/Passes.h.inc"

}  // namespace tg
