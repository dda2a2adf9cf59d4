//===- PointWriter.cpp - Region values computed at one element -------------===//
#include "PointWriter.h"

#include "ScalarMath.h"

#include "tg/Dialect/LayoutChain.h"
#include "tg/Dialect/OpDescription.h"

using namespace mlir;

namespace tg::codegen {

FailureOr<std::string> PointWriter::at(Value v, const DimIndices& idx) {
  if (auto it = bound_.find(v); it != bound_.end()) return it->second;
  if (auto it = substituted_.find(v); it != substituted_.end()) return at(it->second, idx);
  if (DenseElementsAttr splat = splatValue(v)) return splatLiteral(splat, dtypeOfValue(v));
  std::string where;
  if (extents_)
    for (const IndexExpr& d : idx.dims) where += d.str(sfx_) + ",";
  else
    where = linearize(idx).str(sfx_);
  const std::string key = std::to_string(reinterpret_cast<uintptr_t>(v.getAsOpaquePointer())) + "@" + where;
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  Operation* def = v.getDefiningOp();
  std::string name = numbered("t", counter_++);
  if (!def) {  // an input
    const DType dt = dtypeOfValue(v);
    std::string offset = linearize(idx).str(sfx_);
    if (extents_) {
      std::optional<std::vector<Extent>> shape = extents_(v);
      if (!shape) return emitError(v.getLoc(), "an attention input whose sizes overflow over the symbols' ranges");
      offset = linearizeExtents(idx.dims, *shape).str(sfx_);
    }
    os_ << "    const " << computeType(dt) << " " << name << " = "
        << loadConvert(dt, numbered("in", cast<BlockArgument>(v).getArgNumber()) + "[" + offset + "]") << ";\n";
  } else if (auto concat = dyn_cast<ir::ConcatOp>(def)) {
    // The operand the index falls in, in an if-chain; what a branch computes stays in it.
    const auto axis = static_cast<size_t>(concat.getAxis());
    const std::string position = numbered("p", counter_++);
    os_ << "    const EIndex " << position << " = " << idx.dims[axis].str(sfx_) << ";\n";
    os_ << "    " << computeType(dtypeOfValue(v)) << " " << name << ";\n";
    int64_t offset = 0;
    for (auto [k, operand] : llvm::enumerate(concat.getInputs())) {
      auto type = cast<RankedTensorType>(operand.getType());
      const int64_t extent = type.getShape()[axis];
      if (ShapedType::isDynamic(extent))
        return concat.emitOpError("concatenates along a dynamic dim, which an attention kernel does not compute per score");
      const bool last = k + 1 == concat.getInputs().size();
      os_ << "    " << (k ? "else " : "")
          << (last ? std::string("{\n") : "if (" + position + " < " + std::to_string(offset + extent) + sfx_ + ") {\n");
      const std::string shifted = numbered("q", counter_++);
      os_ << "    const EIndex " << shifted << " = " << position << " - " << offset << sfx_ << ";\n";
      DimIndices dims;
      dims.shape = Shape(type.getShape().begin(), type.getShape().end());
      dims.dims = idx.dims;
      dims.dims[axis] = IndexExpr::var(shifted, extent);
      const std::map<std::string, std::string> outside = memo_;
      FailureOr<std::string> value = at(operand, dims);
      memo_ = outside;
      if (failed(value)) return failure();
      os_ << "    " << name << " = " << *value << ";\n    }\n";
      offset += extent;
    }
  } else if (isLayoutOp(def) && extents_) {
    Value root;
    std::optional<std::vector<IndexExpr>> rootDims = mapToRootExtents(v, idx.dims, extents_, root);
    if (!rootDims)
      return def->emitOpError("is a layout over dynamic dims that an attention kernel cannot read through (a slice "
                              "whose starts depend on the symbols?)");
    DimIndices rootIdx;
    rootIdx.dims = std::move(*rootDims);
    FailureOr<std::string> r = at(root, rootIdx);
    if (failed(r)) return failure();
    name = *r;
  } else if (isLayoutOp(def)) {
    Value root;
    DimIndices rootIdx = mapToRoot(v, idx, root);
    FailureOr<std::string> r = at(root, rootIdx);
    if (failed(r)) return failure();
    name = *r;
  } else {
    std::optional<ir::OpDescription> d = ir::describeOp(def);
    if (!d || !graph::isElementwise(d->kind) || isIndexedRead(def))
      return def->emitOpError("cannot be computed per score in an attention kernel");
    std::vector<std::string> operands;
    for (Value operand : def->getOperands()) {
      FailureOr<std::string> o = at(operand, idx);
      if (failed(o)) return failure();
      operands.push_back(*o);
    }
    if (isa<ir::IotaOp>(def)) operands.push_back(iotaOperand(def, idx, sfx_));
    os_ << elementwiseLine(def, *d, operands, name, precision_);
  }
  memo_[key] = name;
  return name;
}

DimIndices elementOf(const Shape& shape, const char* row, const char* col) {
  const int64_t rows = shape[shape.size() - 2], cols = shape.back();
  int64_t batches = 1;
  for (size_t d = 0; d + 2 < shape.size(); ++d) batches *= shape[d];
  DimIndices e = delinearize(IndexExpr::var("b", batches), Shape(shape.begin(), shape.end() - 2));
  e.dims.push_back(IndexExpr::var(row, rows));
  e.dims.push_back(IndexExpr::var(col, cols));
  e.shape = shape;
  e.linear = nullptr;
  return e;
}

DimIndices elementOfExtents(const std::vector<Extent>& shape, const char* row, const char* col) {
  const std::vector<Extent> batchDims(shape.begin(), shape.end() - 2);
  int64_t batches = 1;
  for (const Extent& e : batchDims) batches *= e.value;
  DimIndices e = delinearizeExtents(IndexExpr::var("b", batches), batchDims);
  e.dims.push_back(IndexExpr::var(row, shape[shape.size() - 2].value));
  e.dims.push_back(IndexExpr::var(col, shape.back().value));
  return e;
}

Shape shapeOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  return Shape(t.getShape().begin(), t.getShape().end());
}

}  // namespace tg::codegen
