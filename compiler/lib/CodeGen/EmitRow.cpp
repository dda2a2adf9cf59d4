//===- EmitRow.cpp - CUDA C++ for a row tg.fusion -------------------------===//
//
// Generates `struct TgBody` for templates/row.cuh: a group of threads (a warp, or a block for
// long rows) per row of R x N. The region's ops, in program order, become
//  - per reduction, a pass: each thread folds its elements n = lane, lane + G, ... of the
//    reduction's input (the full ops it needs evaluated at (r, n), inputs read through their
//    layout chains) into an f32 (or i32) accumulator, then tg_row_reduce combines the group's;
//  - per op on one value per row, a line computed once per row;
//  - at the end, a pass that evaluates and stores the full results, and lane 0 storing the
//    results of one value per row.
// This first version re-reads the inputs in every pass (from L1/L2 for rows that fit there);
// keeping the row in registers or shared memory is the next step (issue 15).
//
//===----------------------------------------------------------------------===//
#include "IndexExpr.h"
#include "KernelEmission.h"
#include "ScalarMath.h"

#include "tg/Dialect/LayoutChain.h"
#include "tg/Dialect/OpDescription.h"
#include "tg/Dialect/RowDomain.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <functional>
#include <sstream>

using namespace mlir;

namespace tg::codegen {

namespace {

/// Writes the body of one row: the names of values in row scope, and per pass the full values.
class RowWriter {
 public:
  RowWriter(ir::FusionOp fusion, const RowDomain& d, const std::string& sfx, Precision precision)
      : fusion_(fusion), shape_(d.shape.begin(), d.shape.end()), rows_(d.rows), length_(d.length),
        sfx_(sfx), precision_(precision) {
    const auto kept = static_cast<std::ptrdiff_t>(d.shape.size()) - d.reducedDims;
    keptShape_.assign(shape_.begin(), shape_.begin() + kept);
    reducedShape_.assign(shape_.begin() + kept, shape_.end());
  }

  /// A value of one per row, in row scope (operands of row ops, row results).
  FailureOr<std::string> rowValue(Value v, std::ostream& os) {
    if (auto it = rowNames_.find(v); it != rowNames_.end()) return it->second;
    if (auto splat = splatValue(v)) return splatLiteral(splat, dtypeOfValue(v));
    LayoutChain chain = traceLayout(v);
    // Reshapes, and broadcasts that only add or expand dims of extent 1 (rows of one element),
    // read the same element r.
    if (chain.root != v && rowNames_.count(chain.root) && !hasTranspose(chain) &&
        numelOf(chain.root) == numelOf(v))
      return rowNames_[chain.root];
    if (isa<BlockArgument>(chain.root)) {
      std::string n = read(v, rowIndex(v), os, "    ");
      rowNames_[v] = n;
      return n;
    }
    return fusion_.emitOpError("a row kernel cannot read a value of one per row it holds");
  }

  /// A full value (shape S) at (r, n), inside a pass; `names` memoizes within the pass.
  FailureOr<std::string> fullValue(Value v, llvm::DenseMap<Value, std::string>& names, std::ostream& os) {
    if (auto it = names.find(v); it != names.end()) return it->second;
    if (auto splat = splatValue(v)) return splatLiteral(splat, dtypeOfValue(v));
    LayoutChain chain = traceLayout(v);
    std::string n;
    if (isa<BlockArgument>(chain.root)) {
      n = read(v, fullIndex(v), os, "      ");
    } else if (rowNames_.count(chain.root) && !hasTranspose(chain)) {
      n = rowNames_[chain.root];  // a row broadcast (the fuser checked it): the row's value
    } else if (chain.linear && chain.root != v) {
      FailureOr<std::string> r = fullValue(chain.root, names, os);
      if (failed(r)) return failure();
      n = *r;
    } else if (Operation* def = v.getDefiningOp(); def && !isLayoutOp(def)) {
      std::optional<ir::OpDescription> d = ir::describeOp(def);
      if (!d || !graph::isElementwise(d->kind))
        return def->emitOpError("cannot be computed per element in a row kernel");
      std::vector<std::string> operands;
      for (Value o : def->getOperands()) {
        FailureOr<std::string> r = fullValue(o, names, os);
        if (failed(r)) return failure();
        operands.push_back(*r);
      }
      n = numbered("f", counter_++);
      os << "  " << elementwiseLine(def, *d, operands, n, precision_);
    } else {
      return fusion_.emitOpError("a row kernel reads a value through a layout it cannot index");
    }
    names[v] = n;
    return n;
  }

  void nameRow(Value v, const std::string& n) { rowNames_[v] = n; }
  std::string fresh(const char* prefix) { return numbered(prefix, counter_++); }

 private:
  /// The dims of a value of one per row at row r (row-major over its own shape).
  DimIndices rowIndex(Value v) const {
    return delinearize(IndexExpr::var("r", rows_), shapeOf(v));
  }
  /// The dims of a full value at (r, n): the kept dims from r, the reduced ones from n.
  DimIndices fullIndex(Value v) const {
    // A value of another shape with the same elements (a reshape of the rows): row-major.
    if (shapeOf(v) != shape_) return delinearize(IndexExpr::var("r", rows_) * length_ + IndexExpr::var("n", length_), shapeOf(v));
    DimIndices kept = delinearize(IndexExpr::var("r", rows_), keptShape_);
    DimIndices red = delinearize(IndexExpr::var("n", length_), reducedShape_);
    DimIndices dims;
    dims.shape = shape_;
    dims.dims = kept.dims;
    dims.dims.insert(dims.dims.end(), red.dims.begin(), red.dims.end());
    return dims;
  }
  static bool hasTranspose(const LayoutChain& chain) {
    return llvm::any_of(chain.ops, [](Operation* op) { return isa<ir::TransposeOp>(op); });
  }
  static Shape shapeOf(Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    return Shape(t.getShape().begin(), t.getShape().end());
  }
  /// Loads `v` (whose layout chain starts at a kernel input) at `idx`, as a named local.
  std::string read(Value v, DimIndices idx, std::ostream& os, const char* indent) {
    Value root;
    DimIndices at = mapToRoot(v, std::move(idx), root);
    const DType dt = dtypeOfValue(v);
    std::string n = numbered("m", counter_++);
    os << indent << "const " << computeType(dt) << " " << n << " = "
       << loadConvert(dt, numbered("in", cast<BlockArgument>(root).getArgNumber()) + "[" +
                              linearize(at).str(sfx_) + "]")
       << ";\n";
    return n;
  }

  ir::FusionOp fusion_;
  Shape shape_;
  int64_t rows_, length_;
  Shape keptShape_, reducedShape_;
  std::string sfx_;
  Precision precision_;
  llvm::DenseMap<Value, std::string> rowNames_;
  int counter_ = 0;
};

}  // namespace

FailureOr<KernelEmission> emitRow(ir::FusionOp fusion, const std::string& name, const CodeGenOptions& options) {
  Block& body = fusion.getBody().front();
  auto yield = cast<ir::YieldOp>(body.getTerminator());
  Operation* first = nullptr;
  for (Operation& op : body)
    if (isReductionOp(&op)) {
      first = &op;
      break;
    }
  if (!first) return fusion.emitOpError("is a row kernel without a reduction");
  const RowDomain d = *rowDomainOf(first);  // the verifier checked every reduction's rows
  std::string sfx;
  const std::string index = indexType(d.rows * d.length + 64, sfx);
  RowWriter w(fusion, d, sfx, options.precision);
  const int64_t rows = d.rows, length = d.length;

  // Long rows: a block per row; otherwise a warp per row.
  const int block = 256;
  const int group = length >= 1024 ? block : 32;

  std::ostringstream row;  // the body of row(r, lane)
  for (Operation& op : body) {
    if (isLayoutOp(&op) || isa<ir::ConstantOp, ir::YieldOp>(op)) continue;
    std::optional<ir::OpDescription> d = ir::describeOp(&op);
    if (!d) return op.emitOpError("cannot be generated in a row kernel");
    if (isReductionOp(&op)) {
      const bool isInt = dtypeOfValue(op.getOperand(0)) == DType::I32;
      const bool isMax = d->kind == graph::OpKind::ReduceMax;
      const std::string acc = w.fresh("acc");
      const char* type = isInt ? "int" : "float";
      const std::string identity = reductionIdentity(isMax, isInt);
      const std::string combine = std::string(isMax ? "TgMax" : "TgSum") + (isInt ? "I" : "F") + "()";
      row << "    " << type << " " << acc << " = " << identity << ";\n";
      row << "    for (Index n = lane; n < " << length << sfx << "; n += TG_GROUP) {\n";
      llvm::DenseMap<Value, std::string> names;
      std::ostringstream pass;
      FailureOr<std::string> in = w.fullValue(op.getOperand(0), names, pass);
      if (failed(in)) return failure();
      row << pass.str() << "      " << acc << " = " << combine << "(" << acc << ", " << *in << ");\n    }\n";
      row << "    " << acc << " = tg_row_reduce<" << type << ">(" << acc << ", " << combine << ", "
          << identity << ");\n";
      std::string value = acc;
      if (d->kind == graph::OpKind::ReduceMean) value = "(" + acc + " / " + std::to_string(length) + ".0f)";
      const DType rd = dtypeOfValue(op.getResult(0));
      const std::string n = w.fresh("s");
      row << "    const " << computeType(rd) << " " << n << " = " << value << ";\n";
      w.nameRow(op.getResult(0), n);
      continue;
    }
    if (!graph::isElementwise(d->kind)) return op.emitOpError("cannot be generated in a row kernel");
    if (numelOf(op.getResult(0)) != rows) continue;  // a full op: computed where a pass needs it
    std::vector<std::string> operands;
    for (Value v : op.getOperands()) {
      FailureOr<std::string> r = w.rowValue(v, row);
      if (failed(r)) return failure();
      operands.push_back(*r);
    }
    const std::string n = w.fresh("w");
    row << elementwiseLine(&op, *d, operands, n, options.precision);
    w.nameRow(op.getResult(0), n);
  }

  // Outputs: full ones in a last pass, those of one per row by lane 0.
  std::ostringstream fullOut, rowOut;
  llvm::DenseMap<Value, std::string> names;
  bool anyFull = false;
  for (auto [j, v] : llvm::enumerate(yield.getValues())) {
    const DType dt = dtypeOfValue(v);
    if (numelOf(v) == rows * length && length > 1) {
      FailureOr<std::string> r = w.fullValue(v, names, fullOut);
      if (failed(r)) return failure();
      fullOut << "      out" << j << "[r * " << length << sfx << " + n] = " << storeConvert(dt, *r) << ";\n";
      anyFull = true;
    } else {
      FailureOr<std::string> r = w.rowValue(v, rowOut);
      if (failed(r)) return failure();
      rowOut << "    if (lane == 0) out" << j << "[r] = " << storeConvert(dt, *r) << ";\n";
    }
  }
  if (anyFull)
    row << "    for (Index n = lane; n < " << length << sfx << "; n += TG_GROUP) {\n" << fullOut.str() << "    }\n";
  row << rowOut.str();

  std::ostringstream os;
  os << "struct TgBody {\n";
  os << "  typedef " << index << " Index;\n";
  os << "  static constexpr Index kRows = " << rows << sfx << ";\n";
  for (BlockArgument arg : body.getArguments())
    os << "  const " << storageType(dtypeOfValue(arg)) << "* __restrict__ in" << arg.getArgNumber() << ";\n";
  for (auto [j, v] : llvm::enumerate(yield.getValues()))
    os << "  " << storageType(dtypeOfValue(v)) << "* __restrict__ out" << j << ";\n";
  // row() is defined after the template, which declares the helpers it calls.
  os << "  __device__ void row(Index r, int lane) const;\n};\n";
  const std::string rowDefinition = "__device__ __forceinline__ void TgBody::row(Index r, int lane) const {\n" +
                                    row.str() + "}\n";

  std::ostringstream summary;
  summary << "row: " << rows << " row(s) of " << length << " element(s), "
          << (group == block ? "a block" : "a warp") << " per row";
  KernelEmission e;
  e.kernel.name = name;
  e.kernel.summary = summary.str();
  e.kernel.source = kernelHeader(name, summary.str()) + "#define TG_BLOCK " + std::to_string(block) +
                    "\n#define TG_GROUP " + std::to_string(group) + "\n" + os.str() + rowTemplate() +
                    rowDefinition;
  const int64_t perBlock = block / group;
  const int64_t blocks =
      std::max<int64_t>(1, std::min<int64_t>((rows + perBlock - 1) / perBlock, int64_t(options.smCount) * 16));
  if (failed(setGrid(e, fusion, blocks))) return failure();
  e.dims.block[0] = block;
  return e;
}

}  // namespace tg::codegen
