//===- TgOps.h - tg dialect operations ------------------------------------===//
#pragma once

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tg/Dialect/TgDialect.h"
#include "tg/Dialect/TgTraits.h"
#include "tg/Runtime/Plan.h"
#include "tg/Support/SizeExpr.h"

#include "tg/Dialect/TgOpsEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tg/Dialect/TgOpsAttrs.h.inc"

#define GET_OP_CLASSES
#include "tg/Dialect/TgOps.h.inc"
