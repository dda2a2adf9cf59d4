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

namespace {

/// `v`'s indices `dims` mapped through its layout chain to its root (with run-time extents
/// where `extents` is given); nothing when the chain cannot be followed so.
std::optional<DimIndices> mapToRootOf(Value v, const DimIndices& dims, const ExtentsOf* extents, Value& root) {
  if (!extents) return mapToRoot(v, dims, root);
  std::optional<std::vector<IndexExpr>> mapped = mapToRootExtents(v, dims.dims, *extents, root);
  if (!mapped) return std::nullopt;
  DimIndices out;
  out.dims = std::move(*mapped);
  return out;
}

/// The delinearization of `i` over `v`'s shape (its extents where `extents` is given).
std::optional<DimIndices> elementOfValue(Value v, const IndexExpr& i, const ExtentsOf* extents) {
  auto t = cast<RankedTensorType>(v.getType());
  if (!extents) return delinearize(i, Shape(t.getShape().begin(), t.getShape().end()));
  std::optional<std::vector<Extent>> shape = (*extents)(v);
  if (!shape) return std::nullopt;
  return delinearizeExtents(i, *shape);
}

/// An extent of `v` as C text: its number, or the size argument that holds it.
std::optional<std::string> extentText(Value v, size_t d, const std::string& sfx, const ExtentsOf* extents) {
  const int64_t n = cast<RankedTensorType>(v.getType()).getShape()[d];
  if (!ShapedType::isDynamic(n)) return std::to_string(n) + sfx;
  if (!extents) return std::nullopt;
  std::optional<std::vector<Extent>> shape = (*extents)(v);
  if (!shape) return std::nullopt;
  return "(Index)" + (*shape)[d].name;
}

}  // namespace

FailureOr<std::string> readInput(Value operand, const DimIndices& dims, const std::string& sfx, bool raw,
                                 const ExtentsOf* extents) {
  Value root;
  std::optional<DimIndices> rootDims = mapToRootOf(operand, dims, extents, root);
  if (!rootDims) return failure();
  const DType dt = dtypeOfValue(operand);
  if (auto arg = dyn_cast<BlockArgument>(root)) {
    std::string offset = linearize(*rootDims).str(sfx);
    if (extents) {
      std::optional<std::vector<Extent>> shape = (*extents)(root);
      if (!shape) return failure();
      offset = linearizeExtents(rootDims->dims, *shape).str(sfx);
    }
    std::ostringstream read;  // (not "in" + ...: GCC 12 warns wrongly of overlapping copies)
    read << "in" << arg.getArgNumber() << "[" << offset << "]";
    return raw ? read.str() : loadConvert(dt, read.str());
  }
  if (auto splat = splatValue(root))
    return raw ? storeConvert(dt, splatLiteral(splat, dt)) : splatLiteral(splat, dt);
  return failure();
}

namespace {

/// Declares `name`, the i32 element of `index` at `dims`, checked to lie in [0, bound]: outside,
/// check site `id` is written into the flag and the value clamped.
LogicalResult checkedIndex(Operation* op, Value index, const DimIndices& dims, const std::string& bound, int64_t id,
                           const std::string& name, const std::string& sfx, std::ostream& os,
                           const ExtentsOf* extents = nullptr) {
  FailureOr<std::string> read = readInput(index, dims, sfx, /*raw=*/false, extents);
  if (failed(read)) return op->emitOpError("reads an index the fuser did not put in memory");
  os << "    int " << name << " = " << *read << ";\n"
     << "    if (" << name << " < 0 || (long long)" << name << " > (long long)(" << bound << ")) {\n"
     << "      tg_index_failed(flag, " << id << ");\n"
     << "      " << name << " = " << name << " < 0 ? 0 : (int)(" << bound << ");\n    }\n";
  return success();
}

Shape shapeOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  return Shape(t.getShape().begin(), t.getShape().end());
}

FailureOr<std::string> operandAt(Operation* op, Value operand, const DimIndices& dims, const std::string& sfx,
                                 const ExtentsOf* extents) {
  FailureOr<std::string> v = readInput(operand, dims, sfx, /*raw=*/false, extents);
  if (failed(v)) return op->emitOpError("reads an operand the fuser did not put in memory");
  return v;
}

/// Declares a local holding `operand` (of `op`'s result type) at `dims`; returns its name.
FailureOr<std::string> declareRead(Operation* op, Value operand, const DimIndices& dims, const std::string& sfx,
                                   int& counter, std::ostream& os, const ExtentsOf* extents) {
  FailureOr<std::string> value = operandAt(op, operand, dims, sfx, extents);
  if (failed(value)) return failure();
  const std::string n = numbered("v", counter++);
  os << "    const " << computeType(dtypeOfValue(op->getResult(0))) << " " << n << " = " << *value << ";\n";
  return n;
}

/// `v` at `dims`: an input or splat read through its layout chain, or a recomputed op
/// (isRecomputed) computed from its operands at the same index, declared in `os`.
FailureOr<std::string> valueAt(Operation* reader, Value v, const DimIndices& dims, const std::string& sfx,
                               int& counter, std::ostream& os, Precision precision, const ExtentsOf* extents) {
  Value root;
  std::optional<DimIndices> mapped = mapToRootOf(v, dims, extents, root);
  if (!mapped) return reader->emitOpError("reads an operand through a layout it cannot index over dynamic dims");
  const DimIndices& rootDims = *mapped;
  Operation* def = root.getDefiningOp();
  if (!def || !isRecomputed(def)) return operandAt(reader, v, dims, sfx, extents);
  std::optional<ir::OpDescription> d = ir::describeOp(def);
  if (!d) return def->emitOpError("cannot be recomputed at a concat's index");
  std::vector<std::string> operands;
  for (Value operand : def->getOperands()) {
    FailureOr<std::string> o = valueAt(def, operand, rootDims, sfx, counter, os, precision, extents);
    if (failed(o)) return failure();
    operands.push_back(*o);
  }
  const std::string n = numbered("v", counter++);
  os << elementwiseLine(def, *d, operands, n, precision);
  return n;
}

FailureOr<std::string> concatElement(ir::ConcatOp concat, const DimIndices& at, const std::string& sfx,
                                     int& counter, std::ostream& os, Precision precision, const ExtentsOf* extents) {
  const auto axis = static_cast<size_t>(concat.getAxis());
  const DType dt = dtypeOfValue(concat.getResult());
  const std::string n = numbered("v", counter++), position = numbered("p", counter++);
  os << "    const Index " << position << " = " << at.dims[axis].str(sfx) << ";\n";
  os << "    " << computeType(dt) << " " << n << ";\n";
  int64_t offset = 0;
  for (auto [k, operand] : llvm::enumerate(concat.getInputs())) {
    const Shape shape = shapeOf(operand);
    const int64_t extent = shape[axis];
    if (ShapedType::isDynamic(extent))
      return concat.emitOpError("concatenates along a dynamic dim, which a kernel does not index yet");
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
    FailureOr<std::string> value = valueAt(concat, operand, dims, sfx, counter, os, precision, extents);
    if (failed(value)) return failure();
    os << "      " << n << " = " << *value << ";\n    }\n";
    offset += extent;
  }
  return n;
}

FailureOr<std::string> gatherElement(ir::GatherOp gather, const DimIndices& at, const std::string& sfx,
                                     int& counter, std::ostream& os, const ExtentsOf* extents) {
  const auto axis = static_cast<size_t>(gather.getAxis());
  const Shape xShape = shapeOf(gather.getInput()), indexShape = shapeOf(gather.getIndices());
  if (ShapedType::isDynamic(xShape[axis]))
    return gather.emitOpError("gathers along a dynamic dim, which a kernel does not index yet");
  DimIndices indexDims;
  indexDims.shape = indexShape;
  indexDims.dims.assign(at.dims.begin() + axis, at.dims.begin() + axis + indexShape.size());
  const std::string j = numbered("j", counter++), q = numbered("q", counter++);
  if (failed(checkedIndex(gather, gather.getIndices(), indexDims, std::to_string(xShape[axis] - 1),
                          static_cast<int64_t>(gather.getCheck()), j, sfx, os, extents)))
    return failure();
  os << "    const Index " << q << " = (Index)" << j << ";\n";
  DimIndices xDims;
  xDims.shape = xShape;
  xDims.dims.assign(at.dims.begin(), at.dims.begin() + axis);
  xDims.dims.push_back(IndexExpr::var(q, xShape[axis]));
  xDims.dims.insert(xDims.dims.end(), at.dims.begin() + axis + indexShape.size(), at.dims.end());
  return declareRead(gather, gather.getInput(), xDims, sfx, counter, os, extents);
}

FailureOr<std::string> dynamicSliceElement(ir::DynamicSliceOp slice, const DimIndices& at, const std::string& sfx,
                                           int& counter, std::ostream& os, const ExtentsOf* extents) {
  const auto axis = static_cast<size_t>(slice.getAxis());
  const Shape xShape = shapeOf(slice.getInput()), window = shapeOf(slice.getResult());
  if (ShapedType::isDynamic(xShape[axis]) || ShapedType::isDynamic(window[axis]))
    return slice.emitOpError("slices along a dynamic dim, which a kernel does not index yet");
  const std::string s = numbered("s", counter++), q = numbered("q", counter++);
  if (failed(checkedStart(slice, slice.getStart(), xShape[axis] - window[axis], static_cast<int64_t>(slice.getCheck()),
                          s, sfx, os)))
    return failure();
  os << "    const Index " << q << " = " << at.dims[axis].str(sfx) << " + (Index)" << s << ";\n";
  DimIndices xDims;
  xDims.shape = xShape;
  xDims.dims = at.dims;
  xDims.dims[axis] = IndexExpr::var(q, xShape[axis]);
  return declareRead(slice, slice.getInput(), xDims, sfx, counter, os, extents);
}

FailureOr<std::string> updateElement(ir::DynamicUpdateSliceOp update, const DimIndices& at, const std::string& sfx,
                                     int& counter, std::ostream& os, const ExtentsOf* extents) {
  const auto axis = static_cast<size_t>(update.getAxis());
  const Shape xShape = shapeOf(update.getInput()), uShape = shapeOf(update.getUpdate());
  // The update's extents: numbers, or over dynamic dims the size arguments that hold them
  // (the input's dims are the update's or larger static ones).
  std::vector<std::string> uExtent, xExtent;
  std::vector<int64_t> uLargest;
  std::optional<std::vector<Extent>> uExtents = extents ? (*extents)(update.getUpdate()) : std::nullopt;
  for (size_t d = 0; d < uShape.size(); ++d) {
    std::optional<std::string> u = extentText(update.getUpdate(), d, sfx, extents),
                               x = extentText(update.getInput(), d, sfx, extents);
    if (!u || !x || (extents && !uExtents))
      return update.emitOpError("updates a window the kernel cannot size over dynamic dims");
    uExtent.push_back(*u);
    xExtent.push_back(*x);
    uLargest.push_back(ShapedType::isDynamic(uShape[d]) ? (*uExtents)[d].value : uShape[d]);
  }
  const std::string s = numbered("s", counter++);
  if (ShapedType::isDynamic(xShape[axis]))
    return update.emitOpError("updates along a dynamic dim, which a kernel does not index yet");
  if (failed(checkedStart(update, update.getStart(), std::to_string(xShape[axis]) + " - " + uExtent[axis],
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
    if (uExtent[d] != xExtent[d] || d == axis) inside += " && " + u + " < " + uExtent[d];
    uDims.dims.push_back(IndexExpr::var(u, uLargest[d]));
  }
  const DType dt = dtypeOfValue(update.getResult());
  const std::string n = numbered("v", counter++);
  FailureOr<std::string> fromUpdate = operandAt(update, update.getUpdate(), uDims, sfx, extents);
  FailureOr<std::string> fromInput = operandAt(update, update.getInput(), at, sfx, extents);
  if (failed(fromUpdate) || failed(fromInput)) return failure();
  os << "    " << computeType(dt) << " " << n << ";\n"
     << "    if (" << inside << ") " << n << " = " << *fromUpdate << ";\n"
     << "    else " << n << " = " << *fromInput << ";\n";
  return n;
}

}  // namespace

LogicalResult checkedStart(Operation* op, Value start, const std::string& bound, int64_t id, const std::string& name,
                           const std::string& sfx, std::ostream& os) {
  DimIndices dims;  // the one element of the start tensor (a static type)
  auto t = cast<RankedTensorType>(start.getType());
  dims.shape = Shape(t.getShape().begin(), t.getShape().end());
  dims.dims.assign(dims.shape.size(), IndexExpr::constant(0));
  return checkedIndex(op, start, dims, bound, id, name, sfx, os);
}

LogicalResult checkedStart(Operation* op, Value start, int64_t bound, int64_t id, const std::string& name,
                           const std::string& sfx, std::ostream& os) {
  return checkedStart(op, start, std::to_string(bound), id, name, sfx, os);
}

FailureOr<std::string> indexedElement(Operation* op, const IndexExpr& i, const std::string& sfx, int& counter,
                                      std::ostream& os, Precision precision, const ExtentsOf* extents) {
  const std::optional<DimIndices> element = elementOfValue(op->getResult(0), i, extents);
  if (!element) return op->emitOpError("has sizes that overflow over the symbols' ranges");
  const DimIndices& at = *element;
  if (auto concat = dyn_cast<ir::ConcatOp>(op)) return concatElement(concat, at, sfx, counter, os, precision, extents);
  if (auto gather = dyn_cast<ir::GatherOp>(op)) return gatherElement(gather, at, sfx, counter, os, extents);
  if (auto slice = dyn_cast<ir::DynamicSliceOp>(op)) return dynamicSliceElement(slice, at, sfx, counter, os, extents);
  if (auto update = dyn_cast<ir::DynamicUpdateSliceOp>(op)) return updateElement(update, at, sfx, counter, os, extents);
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
