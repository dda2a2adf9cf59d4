//===- RowDomain.h - The rows a row kernel reduces, and who fits in them ---===//
//
// A row kernel (tg.fusion row) is built around reductions over the trailing dims of one shape
// S: its rows. With R the product of S's leading (kept) dims and N that of the reduced ones,
// its members are
//  - full ops: elementwise ops whose result has shape S (one element per row element),
//  - row ops: the reductions, and elementwise ops of R elements (one per row),
// and a full op reads a row value through a row broadcast: reshapes, then one broadcast that
// expands exactly the reduced dims, so that element (r, n) of S reads element r.
// tg-fuse forms row kernels with it, the verifier checks them and EmitRow.cpp writes them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Dialect/LayoutChain.h"
#include "tg/Dialect/OpDescription.h"
#include "tg/Dialect/SymbolicTypes.h"
#include "tg/Dialect/TgOps.h"

#include <optional>

namespace tg {

inline bool isReductionOp(mlir::Operation* op) {
  return mlir::isa<ir::ReduceSumOp, ir::ReduceMaxOp, ir::ReduceMeanOp, ir::ReduceMinOp, ir::ReduceProdOp,
                   ir::ArgMaxOp, ir::ArgMinOp>(op);
}

/// The rows of a row kernel. Over dynamic dims (issue 18) the kept dims may depend on the
/// function's symbols (R is then a polynomial: `sizes` holds S's #tg.sizes, `rows` is -1); the
/// reduced dims are static, so N is a number.
struct RowDomain {
  llvm::SmallVector<int64_t> shape;  ///< S, the shape of the reduced values (? for dynamic dims)
  int64_t reducedDims = 0;           ///< how many trailing dims of S a row is
  int64_t rows = 1, length = 1;      ///< R (-1 when it depends on symbols) and N
  mlir::Attribute sizes;             ///< S's #tg.sizes encoding over dynamic dims, else null

  bool symbolic() const { return static_cast<bool>(sizes); }
  bool operator==(const RowDomain& o) const {
    return shape == o.shape && reducedDims == o.reducedDims && sizes == o.sizes;
  }
};

/// Each dim of `type` as a size, and their product; the symbols numbered by `names` (give
/// every call for one comparison the same list).
inline std::vector<SizeExpr> dimSizes(mlir::Type type, std::vector<std::string>& names) {
  return ir::sizesOf(type, names);
}
inline SizeExpr elementCount(mlir::Type type, std::vector<std::string>& names) {
  SizeExpr n(1);
  for (const SizeExpr& e : dimSizes(type, names)) n = n * e;
  return n;
}
/// S as a type (f32 elements), to take its sizes.
inline mlir::RankedTensorType rowShapeType(mlir::MLIRContext* context, const RowDomain& d) {
  return mlir::RankedTensorType::get(d.shape, mlir::Float32Type::get(context), d.sizes);
}
/// R, as a size.
inline SizeExpr rowCount(mlir::MLIRContext* context, const RowDomain& d, std::vector<std::string>& names) {
  if (!d.symbolic()) return SizeExpr(d.rows);
  const std::vector<SizeExpr> dims = dimSizes(rowShapeType(context, d), names);
  SizeExpr r(1);
  for (size_t i = 0; i + static_cast<size_t>(d.reducedDims) < dims.size(); ++i) r = r * dims[i];
  return r;
}

/// The rows `op` reduces when it is a reduction over a non-empty suffix of its input's dims
/// (over dynamic dims: a suffix of static dims).
inline std::optional<RowDomain> rowDomainOf(mlir::Operation* op) {
  std::optional<ir::OpDescription> d = ir::describeOp(op);
  if (!d || !graph::isReduction(d->kind) || d->attrs.axes.empty()) return std::nullopt;
  auto type = mlir::cast<mlir::RankedTensorType>(op->getOperand(0).getType());
  const int64_t rank = type.getRank(), k = static_cast<int64_t>(d->attrs.axes.size());
  for (int64_t i = 0; i < k; ++i)
    if (d->attrs.axes[i] != rank - k + i) return std::nullopt;
  RowDomain r;
  r.shape.assign(type.getShape().begin(), type.getShape().end());
  r.reducedDims = k;
  if (ir::isSymbolic(type)) {
    r.sizes = type.getEncoding();
    r.rows = -1;
    for (int64_t i = rank - k; i < rank; ++i) {
      if (mlir::ShapedType::isDynamic(r.shape[i])) return std::nullopt;  // a row of dynamic length
      r.length *= r.shape[i];
    }
    return r;
  }
  for (int64_t i = 0; i < rank; ++i) (i < rank - k ? r.rows : r.length) *= r.shape[i];
  return r;
}

enum class RowRole { None, Full, Row };

/// What `op` is in a row kernel over `d`.
inline RowRole rowRoleOf(mlir::Operation* op, const RowDomain& d) {
  if (std::optional<RowDomain> own = rowDomainOf(op)) return *own == d ? RowRole::Row : RowRole::None;
  if (op->getNumResults() != 1) return RowRole::None;
  auto type = mlir::cast<mlir::RankedTensorType>(op->getResult(0).getType());
  if (llvm::equal(type.getShape(), d.shape) && type.getEncoding() == d.sizes) return RowRole::Full;
  if (!d.symbolic()) return type.hasStaticShape() && type.getNumElements() == d.rows ? RowRole::Row : RowRole::None;
  std::vector<std::string> names;
  const SizeExpr rows = rowCount(op->getContext(), d, names);
  return elementCount(type, names) == rows ? RowRole::Row : RowRole::None;
}

/// Whether `chain` (ending at a value of shape `d.shape`) reads its root, a value of R
/// elements, as a row broadcast: element (r, n) reads root element r.
inline bool isRowBroadcast(const LayoutChain& chain, const RowDomain& d) {
  if (chain.ops.empty()) return false;
  auto bcast = mlir::dyn_cast<ir::BroadcastOp>(chain.ops.front());
  if (!bcast || !llvm::equal(bcast.getType().getShape(), d.shape) || bcast.getType().getEncoding() != d.sizes)
    return false;
  for (size_t i = 1; i < chain.ops.size(); ++i)
    if (!mlir::isa<ir::ReshapeOp>(chain.ops[i])) return false;
  auto in = mlir::cast<mlir::RankedTensorType>(bcast.getInput().getType());
  const int64_t kept = static_cast<int64_t>(d.shape.size()) - d.reducedDims;
  llvm::ArrayRef<int64_t> dims = bcast.getDims();
  if (!d.symbolic()) {
    if (in.getNumElements() != d.rows) return false;
    for (int64_t i = 0; i < in.getRank(); ++i)
      if (in.getDimSize(i) != 1 && (dims[i] >= kept || in.getDimSize(i) != d.shape[dims[i]]))
        return false;  // a row value spread along a reduced dim, or a partial extent
    return true;  // R elements over kept dims of matching extent, in order: every kept dim
  }
  std::vector<std::string> names;  // the same, with the sizes
  const std::vector<SizeExpr> inDims = dimSizes(in, names);
  const std::vector<SizeExpr> outDims = dimSizes(bcast.getType(), names);
  if (elementCount(in, names) != rowCount(bcast->getContext(), d, names)) return false;
  for (int64_t i = 0; i < in.getRank(); ++i)
    if (inDims[i] != SizeExpr(1) && (dims[i] >= kept || inDims[i] != outDims[dims[i]])) return false;
  return true;
}

}  // namespace tg
