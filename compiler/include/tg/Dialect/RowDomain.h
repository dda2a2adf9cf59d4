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

#include <optional>

namespace tg {

inline bool isReductionOp(mlir::Operation* op) {
  return mlir::isa<ir::ReduceSumOp, ir::ReduceMaxOp, ir::ReduceMeanOp, ir::ReduceMinOp, ir::ReduceProdOp,
                   ir::ArgMaxOp, ir::ArgMinOp>(op);
}

struct RowDomain {
  llvm::SmallVector<int64_t> shape;  ///< S, the shape of the reduced values
  int64_t reducedDims = 0;           ///< how many trailing dims of S a row is
  int64_t rows = 1, length = 1;      ///< R and N

  bool operator==(const RowDomain& o) const {
    return shape == o.shape && reducedDims == o.reducedDims;
  }
};

/// The rows `op` reduces when it is a reduction over a non-empty suffix of its input's dims.
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
  for (int64_t i = 0; i < rank; ++i) (i < rank - k ? r.rows : r.length) *= r.shape[i];
  return r;
}

enum class RowRole { None, Full, Row };

/// What `op` is in a row kernel over `d`.
inline RowRole rowRoleOf(mlir::Operation* op, const RowDomain& d) {
  if (std::optional<RowDomain> own = rowDomainOf(op)) return *own == d ? RowRole::Row : RowRole::None;
  if (op->getNumResults() != 1) return RowRole::None;
  auto type = mlir::cast<mlir::RankedTensorType>(op->getResult(0).getType());
  if (llvm::equal(type.getShape(), d.shape)) return RowRole::Full;
  if (type.getNumElements() == d.rows) return RowRole::Row;
  return RowRole::None;
}

/// Whether `chain` (ending at a value of shape `d.shape`) reads its root, a value of R
/// elements, as a row broadcast: element (r, n) reads root element r.
inline bool isRowBroadcast(const LayoutChain& chain, const RowDomain& d) {
  if (chain.ops.empty()) return false;
  auto bcast = mlir::dyn_cast<ir::BroadcastOp>(chain.ops.front());
  if (!bcast || !llvm::equal(bcast.getType().getShape(), d.shape)) return false;
  for (size_t i = 1; i < chain.ops.size(); ++i)
    if (!mlir::isa<ir::ReshapeOp>(chain.ops[i])) return false;
  auto in = mlir::cast<mlir::RankedTensorType>(bcast.getInput().getType());
  if (in.getNumElements() != d.rows) return false;
  const int64_t kept = static_cast<int64_t>(d.shape.size()) - d.reducedDims;
  llvm::ArrayRef<int64_t> dims = bcast.getDims();
  for (int64_t i = 0; i < in.getRank(); ++i)
    if (in.getDimSize(i) != 1 && (dims[i] >= kept || in.getDimSize(i) != d.shape[dims[i]]))
      return false;  // a row value spread along a reduced dim, or a partial extent
  return true;  // R elements over kept dims of matching extent, in order: every kept dim
}

}  // namespace tg
