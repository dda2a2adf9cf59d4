//===- TgOps.cpp - Verifiers and type inference of tg ops -----------------===//
#include "tg/Dialect/TgOps.h"

#include "tg/Dialect/OpDescription.h"
#include "tg/Dialect/RowDomain.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;

namespace tg::ir {

LogicalResult verifyShapeRules(Operation* op) {
  std::optional<OpDescription> desc = describeOp(op);
  if (!desc) return op->emitOpError("has no tg shape rule");
  std::vector<graph::TensorType> operands;
  for (Value v : op->getOperands()) {
    std::optional<graph::TensorType> t = typeOf(v.getType());
    if (!t) return op->emitOpError("operand type ") << v.getType() << " is not a tg tensor";
    operands.push_back(*t);
  }
  graph::TensorType inferred;
  std::string error = graph::inferResultType(desc->kind, desc->attrs, operands, inferred);
  if (!error.empty()) return op->emitOpError(error);
  std::optional<graph::TensorType> actual = typeOf(op->getResult(0).getType());
  if (!actual || *actual != inferred)
    return op->emitOpError("result type ")
           << op->getResult(0).getType() << " does not match the inferred type "
           << tensorTypeOf(op->getContext(), inferred);
  return success();
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext*, std::optional<Location>,
                                           ValueRange, DictionaryAttr attributes,
                                           OpaqueProperties properties, RegionRange,
                                           SmallVectorImpl<Type>& inferred) {
  auto* props = properties.as<Properties*>();
  Attribute value = props ? props->value : attributes.get("value");
  auto elements = dyn_cast_if_present<ElementsAttr>(value);
  if (!elements) return failure();
  inferred.push_back(elements.getType());
  return success();
}

LogicalResult ConstantOp::verify() {
  if (std::string why = whyNotTgTensor(getValue().getType()); !why.empty())
    return emitOpError("value must be a tg tensor: ") << why;
  // The interpreter and code generation read dense<...> literals (a splat stays one element);
  // sparse<...> and dense_resource<...> would each need a reader of their own.
  if (!isa<DenseIntOrFPElementsAttr>(getValue()))
    return emitOpError("value must be a dense<...> literal, got ") << getValue();
  return success();
}

//===----------------------------------------------------------------------===//
// CmpOp
//===----------------------------------------------------------------------===//

LogicalResult CmpOp::inferReturnTypes(MLIRContext* context, std::optional<Location>,
                                      ValueRange operands, DictionaryAttr, OpaqueProperties,
                                      RegionRange, SmallVectorImpl<Type>& inferred) {
  if (operands.empty()) return failure();
  auto type = dyn_cast<RankedTensorType>(operands[0].getType());
  if (!type) return failure();
  inferred.push_back(RankedTensorType::get(type.getShape(), IntegerType::get(context, 1)));
  return success();
}

//===----------------------------------------------------------------------===//
// CheckOp
//===----------------------------------------------------------------------===//

LogicalResult CheckOp::verify() {
  std::optional<graph::TensorType> t = typeOf(getCondition().getType());
  if (!t || t->dtype != DType::Bool)
    return emitOpError("condition must be an i1 tensor, got ") << getCondition().getType();
  if (static_cast<int64_t>(getId()) <= 0) return emitOpError("id must be positive");
  return success();
}

//===----------------------------------------------------------------------===//
// FusionOp
//===----------------------------------------------------------------------===//

/// An attention fusion (tg-fuse-attention): scores = matmul(q, k^T), a softmax of their
/// elementwise modification over the keys, and matmul(p, v) of its elementwise modification,
/// which is the one result.
static LogicalResult verifyAttentionFusion(FusionOp fusion) {
  Block& body = fusion.getBody().front();
  SmallVector<MatmulOp, 2> matmuls;
  int softmaxes = 0;
  for (Operation& op : body) {
    if (auto mm = dyn_cast<MatmulOp>(op)) matmuls.push_back(mm);
    if (isa<SoftmaxOp>(op)) ++softmaxes;
  }
  if (matmuls.size() != 2 || softmaxes != 1)
    return fusion.emitOpError("attention kernel must hold two matmuls and one softmax, not ")
           << matmuls.size() << " and " << softmaxes;
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1 || yield.getOperand(0).getDefiningOp() != matmuls[1].getOperation())
    return fusion.emitOpError("attention kernel must yield its second matmul's result alone");
  if (!matmuls[0].getTransposeB() || matmuls[0].getTransposeA() || matmuls[1].getTransposeA() ||
      matmuls[1].getTransposeB())
    return fusion.emitOpError("attention kernel computes q @ k^T and p @ v (k and v stored [keys, dim])");
  return success();
}

/// A row kernel reduces rows of one shape: at least one reduction, every one over the same
/// trailing dims of an input of the same shape (of any dtype), no matmul.
static LogicalResult verifyRowFusion(FusionOp fusion) {
  std::optional<RowDomain> rows;
  WalkResult walk = fusion.getBody().walk([&](Operation* op) {
    if (isa<MatmulOp>(op)) {
      fusion.emitOpError("row kernels hold no matmul");
      return WalkResult::interrupt();
    }
    if (!isReductionOp(op)) return WalkResult::advance();
    std::optional<RowDomain> own = rowDomainOf(op);
    if (!own) {
      op->emitOpError("in a row kernel reduces trailing dims only, got axes over ")
          << op->getOperand(0).getType();
      return WalkResult::interrupt();
    }
    if (rows && !(*rows == *own)) {
      op->emitOpError("reduces other rows than the row kernel's first reduction");
      return WalkResult::interrupt();
    }
    rows = own;
    return WalkResult::advance();
  });
  if (walk.wasInterrupted()) return failure();
  if (!rows) return fusion.emitOpError("is a row kernel without a reduction");
  return success();
}

LogicalResult FusionOp::verify() {
  Block& body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("region has ") << body.getNumArguments() << " arguments but the op has "
                                      << getInputs().size() << " inputs";
  for (auto [i, pair] : llvm::enumerate(llvm::zip(body.getArguments(), getInputs()))) {
    auto [arg, input] = pair;
    if (arg.getType() != input.getType())
      return emitOpError("region argument ") << i << " has type " << arg.getType()
                                             << " but input " << i << " is " << input.getType();
  }
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield) return emitOpError("region must end with tg.yield");
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("yields (") << yield.getValues().getTypes() << ") but returns ("
                                   << getResultTypes() << ")";
  if (getMatmulAttr() && getKind() != FusionKind::gemm)
    return emitOpError("has a matmul configuration but is a ")
           << stringifyFusionKind(getKind()) << " kernel, not a gemm";
  if (getKind() == FusionKind::row) return verifyRowFusion(*this);
  if (getKind() == FusionKind::attention) return verifyAttentionFusion(*this);
  return success();
}

}  // namespace tg::ir

#define GET_OP_CLASSES
#include "tg/Dialect/TgOps.cpp.inc"
