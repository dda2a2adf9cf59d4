//===- LayoutChain.h - Values reached through broadcast/transpose/reshape ===//
//
// Layout ops move no data by themselves in tg's kernels: a consumer reads the root value
// through an index map. This helper finds the root of a value and the chain of layout ops in
// between, for the fuser (which folds chains into reads) and the code generator (which turns
// them into offset arithmetic).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Dialect/TgOps.h"

#include "llvm/ADT/SmallVector.h"

namespace tg {

inline bool isLayoutOp(mlir::Operation* op) {
  return op && mlir::isa<ir::BroadcastOp, ir::TransposeOp, ir::ReshapeOp>(op);
}

struct LayoutChain {
  mlir::Value root;                          ///< The first value not made by a layout op.
  llvm::SmallVector<mlir::Operation*> ops;   ///< From the value back to the root.
  /// True when every op is a reshape (or there is none): element i of the value is element i
  /// of the root, so the two share a linear index and a buffer.
  bool linear = true;
};

inline LayoutChain traceLayout(mlir::Value v) {
  LayoutChain chain;
  while (mlir::Operation* def = v.getDefiningOp()) {
    if (!isLayoutOp(def)) break;
    chain.ops.push_back(def);
    if (!mlir::isa<ir::ReshapeOp>(def)) chain.linear = false;
    v = def->getOperand(0);
  }
  chain.root = v;
  return chain;
}

}  // namespace tg
