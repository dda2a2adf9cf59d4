//===- TgTraits.h - The TgShapeRules op trait -----------------------------===//
//
// Ops carrying TgShapeRules are verified by tg/Graph/ShapeRules.h: the op is described in graph
// terms (OpDescription.h), its result type inferred by the shared rules, and any violation
// reported with emitOpError.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/OpDefinition.h"

namespace tg::ir {

/// Checks `op` against the shared shape and dtype rules.
mlir::LogicalResult verifyShapeRules(mlir::Operation* op);

namespace OpTrait {
template <typename ConcreteType>
class TgShapeRules : public mlir::OpTrait::TraitBase<ConcreteType, TgShapeRules> {
 public:
  static mlir::LogicalResult verifyTrait(mlir::Operation* op) { return verifyShapeRules(op); }
};
}  // namespace OpTrait

}  // namespace tg::ir

namespace tg::ir {

/// Folds an elementwise op whose operands are all splat constants to a splat constant, by
/// evaluating the reference kernel on one element.
mlir::LogicalResult foldSplatElementwise(mlir::Operation* op,
                                         llvm::ArrayRef<mlir::Attribute> operands,
                                         llvm::SmallVectorImpl<mlir::OpFoldResult>& results);

namespace OpTrait {
template <typename ConcreteType>
class TgSplatFold : public mlir::OpTrait::TraitBase<ConcreteType, TgSplatFold> {
 public:
  static mlir::LogicalResult foldTrait(mlir::Operation* op,
                                       llvm::ArrayRef<mlir::Attribute> operands,
                                       llvm::SmallVectorImpl<mlir::OpFoldResult>& results) {
    return foldSplatElementwise(op, operands, results);
  }
};
}  // namespace OpTrait

}  // namespace tg::ir
