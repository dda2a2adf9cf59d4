//===- IndexedRead.cpp - Elements read at indices the kernel computes ----===//
//
// Concat, gather, dynamic_slice and dynamic_update_slice compute, per element, where in an
// operand the element comes from; the operand is a kernel input (the fuser keeps producers
// out), read through its layout chain, or a splat; a concat's operand may also be a cheap
// elementwise op recomputed at that index (isRecomputed: tg-fuse copied it for the concat).
// Indices read from tensors are checked: one
// out of range writes the op's check site into the flag (`flag`, TgBody's last member) and is
// clamped, so a kernel never reads outside a tensor.
//
//===----------------------------------------------------------------------===//
#include "IndexedRead.h"

#include "ScalarMath.h"

#include "tg/Dialect/LayoutChain.h"
#include "tg/Dialect/OpDescription.h"

#include <sstream>

using namespace mlir;

namespace tg::codegen {

FailureOr<std::string> readInput(Value operand, const DimIndices& dims, const std::string& sfx, bool raw) {
  Value root;
  DimIndices rootDims = mapToRoot(operand, dims, root);
  const DType dt = dtypeOfValue(operand);
  if (auto arg = dyn_cast<BlockArgument>(root)) {
    std::ostringstream read;  // (not "in" + ...: GCC 12 warns wrongly of overlapping copies)
    read << "in" << arg.getArgNumber() << "[" << linearize(rootDims).str(sfx) << "]";
    return raw ? read.str() : loadConvert(dt, read.str());
  }
  if (auto splat = splatValue(root))
    return raw ? storeConvert(dt, splatLiteral(splat, dt)) : splatLiteral(splat, dt);
  return failure();
}

namespace {

/// Declares `name`, the i32 element of `index` at `dims`, checked to lie in [0, bound]: outside,
/// check site `id` is written into the flag and the value clamped.
LogicalResult checkedIndex(Operation* op, Value index, const DimIndices& dims, int64_t bound, int64_t id,
                           const std::string& name, const std::string& sfx, std::ostream& os) {
  FailureOr<std::string> read = readInput(index, dims, sfx);
  if (failed(read)) return op->emitOpError("reads an index the fuser did not put in memory");
  os << "    int " << name << " = " << *read << ";\n"
     << "    if (" << name << " < 0 || " << name << " > " << bound << ") {\n"
     << "      tg_index_failed(flag, " << id << ");\n"
     << "      " << name << " = " << name << " < 0 ? 0 : " << bound << ";\n    }\n";
  return success();
}

Shape shapeOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  return Shape(t.getShape().begin(), t.getShape().end());
}

FailureOr<std::string> operandAt(Operation* op, Value operand, const DimIndices& dims, const std::string& sfx) {
  FailureOr<std::string> v = readInput(operand, dims, sfx);
  if (failed(v)) return op->emitOpError("reads an operand the fuser did not put in memory");
  return v;
}

/// Declares a local holding `operand` (of `op`'s result type) at `dims`; returns its name.
FailureOr<std::string> declareRead(Operation* op, Value operand, const DimIndices& dims, const std::string& sfx,
                                   int& counter, std::ostream& os) {
  FailureOr<std::string> value = operandAt(op, operand, dims, sfx);
  if (failed(value)) return failure();
  const std::string n = numbered("v", counter++);
  os << "    const " << computeType(dtypeOfValue(op->getResult(0))) << " " << n << " = " << *value << ";\n";
  return n;
}

/// `v` at `dims`: an input or splat read through its layout chain, or a recomputed op
/// (isRecomputed) computed from its operands at the same index, declared in `os`.
FailureOr<std::string> valueAt(Operation* reader, Value v, const DimIndices& dims, const std::string& sfx,
                               int& counter, std::ostream& os, Precision precision) {
  Value root;
  DimIndices rootDims = mapToRoot(v, dims, root);
  Operation* def = root.getDefiningOp();
  if (!def || !isRecomputed(def)) return operandAt(reader, v, dims, sfx);
  std::optional<ir::OpDescription> d = ir::describeOp(def);
  if (!d) return def->emitOpError("cannot be recomputed at a concat's index");
  std::vector<std::string> operands;
  for (Value operand : def->getOperands()) {
    FailureOr<std::string> o = valueAt(def, operand, rootDims, sfx, counter, os, precision);
    if (failed(o)) return failure();
    operands.push_back(*o);
  }
  const std::string n = numbered("v", counter++);
  os << elementwiseLine(def, *d, operands, n, precision);
  return n;
}

FailureOr<std::string> concatElement(ir::ConcatOp concat, const DimIndices& at, const std::string& sfx,
                                     int& counter, std::ostream& os, Precision precision) {
  const auto axis = static_cast<size_t>(concat.getAxis());
  const DType dt = dtypeOfValue(concat.getResult());
  const std::string n = numbered("v", counter++), position = numbered("p", counter++);
  os << "    const Index " << position << " = " << at.dims[axis].str(sfx) << ";\n";
  os << "    " << computeType(dt) << " " << n << ";\n";
  int64_t offset = 0;
  for (auto [k, operand] : llvm::enumerate(concat.getInputs())) {
    const Shape shape = shapeOf(operand);
    const int64_t extent = shape[axis];
    const bool last = k + 1 == concat.getInputs().size();
    os << "    " << (k ? "else " : "")
       << (last ? std::string("{\n") : "if (" + position + " < " + std::to_string(offset + extent) + sfx + ") {\n");
    const std::string shifted = numbered("q", counter++);
    os << "      const Index " << shifted << " = " << position << " - " << offset << sfx << ";\n"
       << "      (void)" << shifted << ";\n";
    DimIndices dims;
    dims.shape = shape;
    dims.dims = at.dims;
    dims.dims[axis] = IndexExpr::var(shifted, extent);
    FailureOr<std::string> value = valueAt(concat, operand, dims, sfx, counter, os, precision);
    if (failed(value)) return failure();
    os << "      " << n << " = " << *value << ";\n    }\n";
    offset += extent;
  }
  return n;
}

FailureOr<std::string> gatherElement(ir::GatherOp gather, const DimIndices& at, const std::string& sfx,
                                     int& counter, std::ostream& os) {
  const auto axis = static_cast<size_t>(gather.getAxis());
  const Shape xShape = shapeOf(gather.getInput()), indexShape = shapeOf(gather.getIndices());
  DimIndices indexDims;
  indexDims.shape = indexShape;
  indexDims.dims.assign(at.dims.begin() + axis, at.dims.begin() + axis + indexShape.size());
  const std::string j = numbered("j", counter++), q = numbered("q", counter++);
  if (failed(checkedIndex(gather, gather.getIndices(), indexDims, xShape[axis] - 1,
                          static_cast<int64_t>(gather.getCheck()), j, sfx, os)))
    return failure();
  os << "    const Index " << q << " = (Index)" << j << ";\n";
  DimIndices xDims;
  xDims.shape = xShape;
  xDims.dims.assign(at.dims.begin(), at.dims.begin() + axis);
  xDims.dims.push_back(IndexExpr::var(q, xShape[axis]));
  xDims.dims.insert(xDims.dims.end(), at.dims.begin() + axis + indexShape.size(), at.dims.end());
  return declareRead(gather, gather.getInput(), xDims, sfx, counter, os);
}

FailureOr<std::string> dynamicSliceElement(ir::DynamicSliceOp slice, const DimIndices& at, const std::string& sfx,
                                           int& counter, std::ostream& os) {
  const auto axis = static_cast<size_t>(slice.getAxis());
  const Shape xShape = shapeOf(slice.getInput()), window = shapeOf(slice.getResult());
  const std::string s = numbered("s", counter++), q = numbered("q", counter++);
  if (failed(checkedStart(slice, slice.getStart(), xShape[axis] - window[axis], static_cast<int64_t>(slice.getCheck()),
                          s, sfx, os)))
    return failure();
  os << "    const Index " << q << " = " << at.dims[axis].str(sfx) << " + (Index)" << s << ";\n";
  DimIndices xDims;
  xDims.shape = xShape;
  xDims.dims = at.dims;
  xDims.dims[axis] = IndexExpr::var(q, xShape[axis]);
  return declareRead(slice, slice.getInput(), xDims, sfx, counter, os);
}

FailureOr<std::string> updateElement(ir::DynamicUpdateSliceOp update, const DimIndices& at, const std::string& sfx,
                                     int& counter, std::ostream& os) {
  const auto axis = static_cast<size_t>(update.getAxis());
  const Shape xShape = shapeOf(update.getInput()), uShape = shapeOf(update.getUpdate());
  const std::string s = numbered("s", counter++);
  if (failed(checkedStart(update, update.getStart(), xShape[axis] - uShape[axis],
                          static_cast<int64_t>(update.getCheck()), s, sfx, os)))
    return failure();
  // Inside the window: in every dim, the element's index minus the window's start (unsigned,
  // so an index before the start wraps around) is below the update's extent.
  DimIndices uDims;
  uDims.shape = uShape;
  std::string inside = "true";
  for (size_t d = 0; d < xShape.size(); ++d) {
    const std::string u = numbered("u", counter++);
    const std::string offset = d == axis ? "(Index)" + s : std::to_string(update.getOffsets()[d]) + sfx;
    os << "    const Index " << u << " = " << at.dims[d].str(sfx) << " - " << offset << ";\n";
    if (uShape[d] < xShape[d] || d == axis) inside += " && " + u + " < " + std::to_string(uShape[d]) + sfx;
    uDims.dims.push_back(IndexExpr::var(u, uShape[d]));
  }
  const DType dt = dtypeOfValue(update.getResult());
  const std::string n = numbered("v", counter++);
  FailureOr<std::string> fromUpdate = operandAt(update, update.getUpdate(), uDims, sfx);
  FailureOr<std::string> fromInput = operandAt(update, update.getInput(), at, sfx);
  if (failed(fromUpdate) || failed(fromInput)) return failure();
  os << "    " << computeType(dt) << " " << n << ";\n"
     << "    if (" << inside << ") " << n << " = " << *fromUpdate << ";\n"
     << "    else " << n << " = " << *fromInput << ";\n";
  return n;
}

}  // namespace

LogicalResult checkedStart(Operation* op, Value start, int64_t bound, int64_t id, const std::string& name,
                           const std::string& sfx, std::ostream& os) {
  DimIndices dims;  // the one element of the start tensor
  auto t = cast<RankedTensorType>(start.getType());
  dims.shape = Shape(t.getShape().begin(), t.getShape().end());
  dims.dims.assign(dims.shape.size(), IndexExpr::constant(0));
  return checkedIndex(op, start, dims, bound, id, name, sfx, os);
}

FailureOr<std::string> indexedElement(Operation* op, const IndexExpr& i, const std::string& sfx, int& counter,
                                      std::ostream& os, Precision precision) {
  const DimIndices at = delinearize(i, shapeOf(op->getResult(0)));
  if (auto concat = dyn_cast<ir::ConcatOp>(op)) return concatElement(concat, at, sfx, counter, os, precision);
  if (auto gather = dyn_cast<ir::GatherOp>(op)) return gatherElement(gather, at, sfx, counter, os);
  if (auto slice = dyn_cast<ir::DynamicSliceOp>(op)) return dynamicSliceElement(slice, at, sfx, counter, os);
  if (auto update = dyn_cast<ir::DynamicUpdateSliceOp>(op)) return updateElement(update, at, sfx, counter, os);
  return op->emitOpError("is not read at computed indices");
}

bool writesCheckFlag(ir::FusionOp fusion) {
  bool any = false;
  fusion.getBody().walk([&](Operation* op) {
    any |= isa<ir::GatherOp, ir::DynamicSliceOp, ir::DynamicUpdateSliceOp>(op);
  });
  return any;
}

}  // namespace tg::codegen
