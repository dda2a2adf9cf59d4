//===- TgDialect.cpp - Registration of the tg dialect ---------------------===//
#include "tg/Dialect/TgDialect.h"
#include "tg/Dialect/TgOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

#include "tg/Dialect/TgOpsDialect.cpp.inc"
#include "tg/Dialect/TgOpsEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "tg/Dialect/TgOpsAttrs.cpp.inc"

namespace tg::ir {

void TgDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tg/Dialect/TgOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tg/Dialect/TgOpsAttrs.cpp.inc"
      >();
}

LogicalResult MatmulConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                       MatmulPath path, StringRef arch, DenseI64ArrayAttr tile,
                                       int64_t stages, GemmSchedule schedule,
                                       StringRef kmajorCopy, StringRef reason) {
  (void)arch;
  (void)reason;
  if (!tile || tile.size() != 3 || tile[0] <= 0 || tile[1] <= 0 || tile[2] <= 0)
    return emitError() << "a matmul tile is three positive extents (rows, columns, K-block)";
  const bool pipelined = path == MatmulPath::wgmma || path == MatmulPath::mma_sync;
  if (stages < 0 || (pipelined && stages < 2))
    return emitError() << "the " << stringifyMatmulPath(path)
                       << " path needs at least 2 pipeline stages, got " << stages;
  if ((path == MatmulPath::wgmma) != (schedule != GemmSchedule::none))
    return emitError() << "a schedule (cooperative or pingpong) is given exactly for wgmma";
  if (kmajorCopy != "" && kmajorCopy != "A" && kmajorCopy != "B" && kmajorCopy != "A, B")
    return emitError() << "kmajor_copy is \"\", \"A\", \"B\" or \"A, B\", not \"" << kmajorCopy
                       << "\"";
  return success();
}

Operation* TgDialect::materializeConstant(OpBuilder& builder, Attribute value, Type type,
                                          Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type) return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

LogicalResult BufferAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 rt::PlanBuffer::Kind kind, int64_t index, int64_t offset,
                                 int64_t bytes) {
  using Kind = rt::PlanBuffer::Kind;
  if (bytes < 0 || offset < 0) return emitError() << "a buffer's bytes and offset are not negative";
  const bool indexed = kind == Kind::Input || kind == Kind::Output;
  if (indexed != (index >= 0))
    return emitError() << "a buffer has an index (>= 0) exactly when it is an input or output, "
                       << "not for '" << rt::bufferKindName(kind) << "' with index " << index;
  if (index < -1) return emitError() << "index " << index << " is neither a position nor -1";
  if (kind != Kind::Arena && offset != 0)
    return emitError() << "only arena buffers have an offset";
  return success();
}

}  // namespace tg::ir
