//===- TgDialect.cpp - Registration of the tg dialect ---------------------===//
#include "tg/Dialect/TgDialect.h"
#include "tg/Dialect/TgOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;

#include "tg/Dialect/TgOpsDialect.cpp.inc"
#include "tg/Dialect/TgOpsEnums.cpp.inc"

namespace tg::ir {

void TgDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tg/Dialect/TgOps.cpp.inc"
      >();
}

Operation* TgDialect::materializeConstant(OpBuilder& builder, Attribute value, Type type,
                                          Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type) return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

}  // namespace tg::ir
