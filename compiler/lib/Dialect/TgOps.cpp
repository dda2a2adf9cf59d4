//===- TgOps.cpp - Verifiers and type inference of tg ops -----------------===//
#include "tg/Dialect/TgOps.h"

#include "tg/Dialect/OpDescription.h"
#include "tg/Dialect/RowDomain.h"
#include "tg/Dialect/SymbolicTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace tg::ir {

namespace {

/// The sizes an op's attributes hold (slice bounds, update offsets that depend on symbols).
SmallVector<SizesAttr> symbolicLists(Operation* op) {
  SmallVector<SizesAttr> out;
  for (NamedAttribute a : op->getAttrs())
    if (auto sizes = dyn_cast<SizesAttr>(a.getValue())) out.push_back(sizes);
  return out;
}

/// verifyShapeRules for an op with symbolic types or bounds (SymbolicTypes.h; `lists`: its
/// attributes' sizes): the concrete rules at each of verificationSizes' sizes of the symbols
/// they use.
LogicalResult verifySymbolicShapeRules(Operation* op, const OpDescription& desc, SmallVector<SizesAttr> lists) {
  std::string error;
  std::optional<Symbols> symbols = symbolsOf(op, error);
  if (!symbols)
    return op->emitOpError(error.empty() ? "has types with dynamic dims (#tg.sizes) outside a function with "
                                           "tg.symbols"
                                         : error);
  for (Value v : op->getOperands())
    if (isSymbolic(v.getType())) lists.push_back(cast<SizesAttr>(cast<RankedTensorType>(v.getType()).getEncoding()));
  if (isSymbolic(op->getResult(0).getType()))
    lists.push_back(cast<SizesAttr>(cast<RankedTensorType>(op->getResult(0).getType()).getEncoding()));
  std::vector<int> used;
  for (SizesAttr list : lists) {
    std::vector<std::string> names = symbols->names;  // (unknown names are reported below)
    for (const SizeExpr& e : list.getSizes(names))
      for (size_t s = 0; s < symbols->names.size(); ++s)
        if (e.uses(static_cast<int>(s)) && std::find(used.begin(), used.end(), static_cast<int>(s)) == used.end())
          used.push_back(static_cast<int>(s));
  }
  for (const std::vector<int64_t>& values : verificationSizes(*symbols, used)) {
    auto at = [&]() {
      std::string text;
      for (int s : used) text += (text.empty() ? "" : ", ") + symbols->names[s] + " = " + std::to_string(values[s]);
      return text;
    };
    std::vector<graph::TensorType> operands;
    for (Value v : op->getOperands()) {
      std::optional<graph::TensorType> t = instantiate(v.getType(), *symbols, values, error);
      if (!t) return op->emitOpError("operand type ") << v.getType() << " at " << at() << ": " << error;
      operands.push_back(*t);
    }
    std::optional<graph::TensorType> actual = instantiate(op->getResult(0).getType(), *symbols, values, error);
    if (!actual) return op->emitOpError("result type ") << op->getResult(0).getType() << " at " << at() << ": " << error;
    OpDescription d = desc;
    if (!d.attrs.shape.empty()) d.attrs.shape = actual->shape;  // the ops whose shape is their result's
    // Bounds and offsets that depend on symbols, at these sizes.
    std::optional<std::vector<int64_t>> starts, limits, steps;
    if (auto slice = dyn_cast<SliceOp>(op)) {
      starts = instantiateList(slice.getStartsAttr(), slice.getSymStartsAttr(), *symbols, values, error);
      if (starts) limits = instantiateList(slice.getLimitsAttr(), slice.getSymLimitsAttr(), *symbols, values, error);
      if (limits) steps = instantiateList(slice.getStepsAttr(), slice.getSymStepsAttr(), *symbols, values, error);
      if (!steps) return op->emitOpError(error);
      d.attrs.starts = *starts;
      d.attrs.limits = *limits;
      d.attrs.steps = *steps;
    } else if (auto update = dyn_cast<DynamicUpdateSliceOp>(op)) {
      starts = instantiateList(update.getOffsetsAttr(), update.getSymOffsetsAttr(), *symbols, values, error);
      if (!starts) return op->emitOpError(error);
      d.attrs.starts = *starts;
    }
    graph::TensorType inferred;
    error = graph::inferResultType(d.kind, d.attrs, operands, inferred);
    if (!error.empty()) return op->emitOpError(error) << " (at " << at() << ")";
    if (*actual != inferred)
      return op->emitOpError("result type ")
             << op->getResult(0).getType() << " is " << tensorTypeOf(op->getContext(), *actual) << " at " << at()
             << ", where the rules give " << tensorTypeOf(op->getContext(), inferred);
  }
  return success();
}

}  // namespace

LogicalResult verifyShapeRules(Operation* op) {
  std::optional<OpDescription> desc = describeOp(op);
  if (!desc) return op->emitOpError("has no tg shape rule");
  SmallVector<SizesAttr> lists = symbolicLists(op);
  bool symbolic = !lists.empty() || (op->getNumResults() > 0 && isSymbolic(op->getResult(0).getType()));
  for (Value v : op->getOperands()) symbolic = symbolic || isSymbolic(v.getType());
  if (symbolic) return verifySymbolicShapeRules(op, *desc, std::move(lists));
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
  inferred.push_back(RankedTensorType::get(type.getShape(), IntegerType::get(context, 1), type.getEncoding()));
  return success();
}

//===----------------------------------------------------------------------===//
// SizeOp
//===----------------------------------------------------------------------===//

LogicalResult SizeOp::verify() {
  std::string error;
  std::optional<Symbols> symbols = symbolsOf(*this, error);
  if (!symbols) return emitOpError(error.empty() ? "reads a size outside a function with tg.symbols" : error);
  const std::optional<std::vector<SizeExpr>> sizesList = sizesIn(getValue(), *symbols, "its size", error);
  if (!sizesList) return emitOpError(error);
  const std::vector<SizeExpr>& sizes = *sizesList;
  if (sizes.size() != 1) return emitOpError("holds one size, not ") << sizes.size();
  if (sizes[0].isConstant()) return emitOpError("holds the constant ") << *sizes[0].constant() << ": use tg.constant";
  auto type = cast<RankedTensorType>(getType());
  const std::optional<DType> dtype = dtypeOf(type.getElementType());
  if (type.getRank() != 0 || !dtype || *dtype == DType::Bool)
    return emitOpError("result must be a 0-d numeric tensor (i32, f32, f16 or bf16), got ") << type;
  return success();
}

//===----------------------------------------------------------------------===//
// CheckOp
//===----------------------------------------------------------------------===//

LogicalResult CheckOp::verify() {
  const Type type = getCondition().getType();
  if (isSymbolic(type)) {  // a condition with dynamic dims (SymbolicTypes.h)
    if (std::string why = whyNotSymbolicTgTensor(type); !why.empty()) return emitOpError(why);
  } else if (!typeOf(type)) {
    return emitOpError("condition must be an i1 tensor, got ") << type;
  }
  if (dtypeOf(getElementTypeOrSelf(type)) != DType::Bool)
    return emitOpError("condition must be an i1 tensor, got ") << type;
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
