//===- TgFolds.cpp - Folders and canonicalization patterns of tg ops ------===//
//
// Only identities that hold bit for bit: x * 1, x / 1, x - (+0), x + (-0) for floats (x + 0
// would turn -0 into +0), the same with 0 and 1 for i32, cast/broadcast/reshape/transpose to the
// same type, compositions of layout ops, and constant folding of splats through the reference
// kernels (so folding agrees with execution).
//
//===----------------------------------------------------------------------===//
#include "tg/Dialect/HostElements.h"
#include "tg/Dialect/OpDescription.h"
#include "tg/Dialect/SymbolicTypes.h"
#include "tg/Dialect/TgOps.h"
#include "tg/Reference/RefKernels.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using tg::graph::OpKind;

namespace tg::ir {

//===----------------------------------------------------------------------===//
// Splat helpers
//===----------------------------------------------------------------------===//

static DenseElementsAttr splatOf(Attribute attr) {
  auto dense = dyn_cast_if_present<DenseElementsAttr>(attr);
  return dense && dense.isSplat() ? dense : DenseElementsAttr();
}

LogicalResult foldSplatElementwise(Operation* op, ArrayRef<Attribute> operands,
                                   SmallVectorImpl<OpFoldResult>& results) {
  if (op->getNumResults() != 1 || operands.empty()) return failure();
  std::vector<ref::HostTensor> hosts;
  for (Attribute a : operands) {
    DenseElementsAttr splat = splatOf(a);
    if (!splat) return failure();
    std::optional<ref::HostTensor> h = splatElement(splat);
    if (!h) return failure();
    hosts.push_back(*h);
  }
  std::optional<OpDescription> desc = describeOp(op);
  if (!desc || !graph::isElementwise(desc->kind)) return failure();
  // A constant has a static type: a result with dynamic dims (#tg.sizes) is not folded.
  if (!cast<ShapedType>(op->getResult(0).getType()).hasStaticShape()) return failure();
  ref::HostTensor r = ref::evaluate(desc->kind, desc->attrs, hosts);
  results.push_back(elementsFromHost(r, cast<ShapedType>(op->getResult(0).getType()), /*splat=*/true));
  return success();
}

/// True if `attr` is a splat float constant equal to `value` with the same sign of zero.
static bool isSplatFloat(Attribute attr, double value) {
  DenseElementsAttr splat = splatOf(attr);
  if (!splat || !isa<FloatType>(splat.getElementType())) return false;
  APFloat v = splat.getSplatValue<APFloat>();
  bool lost;
  v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return v.bitwiseIsEqual(APFloat(value));
}

static bool isSplatInt(Attribute attr, int64_t value) {
  DenseElementsAttr splat = splatOf(attr);
  return splat && splat.getElementType().isInteger() &&
         splat.getSplatValue<APInt>().getSExtValue() == value;
}

static bool isFloatOp(Operation* op) {
  return isa<FloatType>(getElementTypeOrSelf(op->getResult(0).getType()));
}

/// x + (-0.0) = x and x * 1 = x, identities for floats; `intIdentity` plays that role for i32.
static OpFoldResult foldIdentity(Operation* op, Attribute lhs, Attribute rhs, double floatId,
                                 int64_t intId, bool commutative) {
  bool isFloat = isFloatOp(op);
  auto isId = [&](Attribute a) { return isFloat ? isSplatFloat(a, floatId) : isSplatInt(a, intId); };
  if (isId(rhs)) return op->getOperand(0);
  if (commutative && isId(lhs)) return op->getOperand(1);
  return {};
}

//===----------------------------------------------------------------------===//
// Folders
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult AddOp::fold(FoldAdaptor a) {
  return foldIdentity(*this, a.getLhs(), a.getRhs(), -0.0, 0, /*commutative=*/true);
}
OpFoldResult SubOp::fold(FoldAdaptor a) {
  return foldIdentity(*this, a.getLhs(), a.getRhs(), +0.0, 0, /*commutative=*/false);
}
OpFoldResult MulOp::fold(FoldAdaptor a) {
  return foldIdentity(*this, a.getLhs(), a.getRhs(), 1.0, 1, /*commutative=*/true);
}
OpFoldResult DivOp::fold(FoldAdaptor a) {
  return foldIdentity(*this, a.getLhs(), a.getRhs(), 1.0, 1, /*commutative=*/false);
}

OpFoldResult SelectOp::fold(FoldAdaptor a) {
  if (getTrueValue() == getFalseValue()) return getTrueValue();
  if (DenseElementsAttr cond = splatOf(a.getCondition()))
    return cond.getSplatValue<bool>() ? getTrueValue() : getFalseValue();
  return {};
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType()) return getInput();
  return {};
}

OpFoldResult BroadcastOp::fold(FoldAdaptor a) {
  if (getInput().getType() == getType()) return getInput();
  // A splat over dynamic dims (#tg.sizes) stays a broadcast: a constant has a static type.
  if (DenseElementsAttr splat = splatOf(a.getInput()); splat && getType().hasStaticShape())
    return DenseElementsAttr::get(getType(), splat.getSplatValue<Attribute>());
  return {};
}

OpFoldResult ReshapeOp::fold(FoldAdaptor a) {
  if (getInput().getType() == getType()) return getInput();
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(a.getInput()); dense && getType().hasStaticShape())
    return dense.reshape(getType());
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {  // reshape(reshape(x))
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

static bool isIdentityPerm(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (p != static_cast<int64_t>(i)) return false;
  return true;
}

OpFoldResult TransposeOp::fold(FoldAdaptor a) {
  if (isIdentityPerm(getPerm())) return getInput();
  if (DenseElementsAttr splat = splatOf(a.getInput()))
    return DenseElementsAttr::get(getType(), splat.getSplatValue<Attribute>());
  if (auto inner = getInput().getDefiningOp<TransposeOp>()) {  // compose the permutations
    SmallVector<int64_t> composed;
    for (int64_t p : getPerm()) composed.push_back(inner.getPerm()[p]);
    if (isIdentityPerm(composed)) return inner.getInput();
    setPerm(composed);
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1) return getInputs()[0];
  return {};
}

OpFoldResult SliceOp::fold(FoldAdaptor a) {
  if (getInput().getType() == getType()) return getInput();  // every element, in order
  // Dynamic dims (#tg.sizes): no constant of the result's type, and no composition of bounds
  // read from extents that are `?`.
  if (!getType().hasStaticShape() || !getInput().getType().hasStaticShape()) return {};
  if (getSymStarts() || getSymLimits() || getSymSteps()) return {};  // bounds that are `?`
  if (DenseElementsAttr splat = splatOf(a.getInput()))
    return DenseElementsAttr::get(getType(), splat.getSplatValue<Attribute>());
  auto inner = getInput().getDefiningOp<SliceOp>();
  if (inner && !inner.getSymStarts() && !inner.getSymLimits() && !inner.getSymSteps()) {  // compose: one window of the root
    SmallVector<int64_t> starts, limits, steps;
    for (auto [d, extent] : llvm::enumerate(getType().getShape())) {
      const int64_t step = inner.getSteps()[d] * getSteps()[d];
      const int64_t start = inner.getStarts()[d] + getStarts()[d] * inner.getSteps()[d];
      starts.push_back(start);
      steps.push_back(step);
      limits.push_back(extent == 0 ? start : start + (extent - 1) * step + 1);
    }
    setStarts(starts);
    setLimits(limits);
    setSteps(steps);
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

template <typename ReduceOp>
static OpFoldResult foldReduce(ReduceOp op) {
  if (op.getAxes().empty() && op.getInput().getType() == op.getType()) return op.getInput();
  return {};
}
OpFoldResult ReduceSumOp::fold(FoldAdaptor) { return foldReduce(*this); }
OpFoldResult ReduceMaxOp::fold(FoldAdaptor) { return foldReduce(*this); }
OpFoldResult ReduceMeanOp::fold(FoldAdaptor) { return foldReduce(*this); }
OpFoldResult ReduceMinOp::fold(FoldAdaptor) { return foldReduce(*this); }
OpFoldResult ReduceProdOp::fold(FoldAdaptor) { return foldReduce(*this); }

//===----------------------------------------------------------------------===//
// Canonicalization patterns
//===----------------------------------------------------------------------===//

namespace {

/// broadcast(broadcast(x)) -> broadcast(x), composing the dim maps.
struct ComposeBroadcasts : OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op, PatternRewriter& rewriter) const override {
    auto inner = op.getInput().getDefiningOp<BroadcastOp>();
    if (!inner) return failure();
    SmallVector<int64_t> dims;
    for (int64_t d : inner.getDims()) dims.push_back(op.getDims()[d]);
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, op.getType(), inner.getInput(), dims);
    return success();
  }
};

/// matmul(transpose(a) over its last two dims, b) -> matmul(a, b) {transpose_a}; same for b,
/// and a transpose of b that ends in its input's last dim then another (below).
struct AbsorbTransposeIntoMatmul : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  static TransposeOp swapsLastTwo(Value v) {
    auto t = v.getDefiningOp<TransposeOp>();
    if (!t) return {};
    ArrayRef<int64_t> perm = t.getPerm();
    size_t r = perm.size();
    if (r < 2 || perm[r - 2] != static_cast<int64_t>(r - 1) ||
        perm[r - 1] != static_cast<int64_t>(r - 2))
      return {};
    for (size_t i = 0; i + 2 < r; ++i)
      if (perm[i] != static_cast<int64_t>(i)) return {};
    return t;
  }

  /// A transpose of b that moves its input's last dim to the second last (and more: the
  /// composed transposes of a heads split, k [B, S, H, D] -> [B, H, D, S]): b is that with the
  /// last two dims swapped back, read transposed, [B, H, S, D] {transpose_b}. Its rows then
  /// keep the input's last dim (attention's keys stored [keys, dim]); the rewritten transpose
  /// does not match again (its last dim is the input's).
  static TransposeOp movesLastToSecondLast(Value v) {
    auto t = v.getDefiningOp<TransposeOp>();
    if (!t) return {};
    ArrayRef<int64_t> perm = t.getPerm();
    const size_t r = perm.size();
    if (r < 3 || perm[r - 2] != static_cast<int64_t>(r - 1)) return {};
    return t;
  }

  LogicalResult matchAndRewrite(MatmulOp op, PatternRewriter& rewriter) const override {
    TransposeOp ta = swapsLastTwo(op.getA()), tb = swapsLastTwo(op.getB());
    TransposeOp tbPart = tb ? TransposeOp() : movesLastToSecondLast(op.getB());
    if (!ta && !tb && !tbPart) return failure();
    Value a = ta ? ta.getInput() : op.getA();
    Value b = tb ? tb.getInput() : op.getB();
    if (tbPart) {
      SmallVector<int64_t> perm(tbPart.getPerm());
      std::swap(perm[perm.size() - 2], perm[perm.size() - 1]);
      // The input's sizes permuted (with dynamic dims, their #tg.sizes too).
      std::vector<std::string> names;
      const std::vector<SizeExpr> in = sizesOf(tbPart.getInput().getType(), names);
      std::vector<SizeExpr> sizes;
      for (int64_t p : perm) sizes.push_back(in[static_cast<size_t>(p)]);
      std::optional<DType> dtype = dtypeOf(getElementTypeOrSelf(tbPart.getInput().getType()));
      if (!dtype) return failure();
      auto type = symbolicTensorType(rewriter.getContext(), *dtype, sizes, names);
      b = TransposeOp::create(rewriter, tbPart.getLoc(), type, tbPart.getInput(), perm);
    }
    bool transA = op.getTransposeA() != static_cast<bool>(ta);
    bool transB = op.getTransposeB() != (tb || tbPart);
    rewriter.replaceOpWithNewOp<MatmulOp>(op, op.getType(), a, b, transA, transB);
    return success();
  }
};

/// transpose(x) -> reshape(x) when the perm keeps the dims of extent > 1 in their order (it
/// moves only dims of extent 1): the elements stay in memory order, so it is free, and a
/// kernel reads it at its own index (a decode step's [1, H, d] -> [H, 1, d]).
struct TransposeOfUnitDimsIsReshape : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter& rewriter) const override {
    ArrayRef<int64_t> in = cast<RankedTensorType>(op.getInput().getType()).getShape();
    int64_t last = -1;
    for (int64_t p : op.getPerm()) {
      if (in[static_cast<size_t>(p)] == 1) continue;
      if (p < last) return failure();
      last = p;
    }
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getInput());
    return success();
  }
};

}  // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet& results, MLIRContext* context) {
  results.add<TransposeOfUnitDimsIsReshape>(context);
}

void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet& results, MLIRContext* context) {
  results.add<ComposeBroadcasts>(context);
}

void MatmulOp::getCanonicalizationPatterns(RewritePatternSet& results, MLIRContext* context) {
  results.add<AbsorbTransposeIntoMatmul>(context);
}

}  // namespace tg::ir
