//===- TgDialect.h - The tg dialect ---------------------------------------===//
#pragma once

#include "mlir/IR/Dialect.h"

#include "tg/Dialect/TgOpsDialect.h.inc"
