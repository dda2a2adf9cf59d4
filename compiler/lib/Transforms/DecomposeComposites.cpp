//===- DecomposeComposites.cpp - softmax / layer_norm -> primitives -------===//
//
// Rewrites the composite ops into reductions and elementwise ops that the fuser groups into
// kernels. bf16/f16 inputs are widened to f32 for the whole computation and the result is
// rounded once at the end, as the reference computes them.
//
//===----------------------------------------------------------------------===//
#include "tg/Dialect/SymbolicInference.h"
#include "tg/Dialect/SymbolicTypes.h"
#include "tg/Dialect/OpDescription.h"
#include "tg/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <numeric>

namespace tg {
#define GEN_PASS_DEF_TGDECOMPOSECOMPOSITES
#include "tg/Transforms/Passes.h.inc"
}  // namespace tg

using namespace mlir;
using tg::graph::OpKind;

namespace tg {
namespace {

/// Builds tg ops by kind, inferring result types with the shared shape rules: on static types
/// directly, on types with dynamic dims (a function with tg.symbols) at sample sizes
/// (SymbolicInference.h). A failure there (none for operands that verified) is kept in
/// `failure` for the pass to report.
class Emitter {
 public:
  Emitter(OpBuilder& b, Location loc, const ir::Symbols* symbols, std::string& failure)
      : b_(b), loc_(loc), symbols_(symbols), failure_(failure) {}

  Value op(OpKind kind, graph::OpAttrs attrs, ValueRange operands) {
    return build(kind, [attrs](std::span<const int64_t>) { return attrs; }, operands);
  }
  Value unary(OpKind kind, Value x) { return op(kind, {}, {x}); }
  Value binary(OpKind kind, Value x, Value y) { return op(kind, {}, {x, y}); }

  Value cast(Value x, DType dtype) {
    if (dtypeOfValue(x) == dtype) return x;
    graph::OpAttrs attrs;
    attrs.dtype = dtype;
    return op(OpKind::Cast, attrs, {x});
  }
  /// reduce over `axis`, keeping it with extent 1.
  Value reduceKeep(OpKind kind, Value x, int64_t axis) {
    graph::OpAttrs attrs;
    attrs.axes = {axis};
    attrs.keepDims = true;
    return op(kind, attrs, {x});
  }
  /// Broadcasts `x` (same rank, or lower rank aligned to the last dims) to the shape of `like`.
  Value broadcastLike(Value x, Value like) {
    const std::vector<int64_t> dims = graph::trailingDims(rankOf(x), rankOf(like));
    Type likeType = like.getType();
    return build(OpKind::Broadcast, [this, dims, likeType](std::span<const int64_t> values) {
      graph::OpAttrs attrs;
      attrs.dims = dims;
      std::string ignored;  // an instance the inference has already made of the operands
      if (std::optional<graph::TensorType> t = symbols_ ? ir::instantiate(likeType, *symbols_, values, ignored)
                                                        : ir::typeOf(likeType))
        attrs.shape = t->shape;
      return attrs;
    }, {x});
  }
  /// `value` in the dtype of `like`, broadcast to its shape: a splat constant for a static
  /// type, one element broadcast for one with dynamic dims (no constant has such a type).
  Value splatLike(double value, Value like) {
    auto likeType = llvm::cast<RankedTensorType>(like.getType());
    auto element = [&](Type t) {
      return isa<FloatType>(t) ? Attribute(b_.getFloatAttr(t, value)) : Attribute(b_.getIntegerAttr(t, (int64_t)value));
    };
    if (!ir::isSymbolic(likeType))
      return ir::ConstantOp::create(b_, loc_, DenseElementsAttr::get(likeType, element(likeType.getElementType())));
    auto scalar = RankedTensorType::get({}, likeType.getElementType());
    Value one = ir::ConstantOp::create(b_, loc_, DenseElementsAttr::get(scalar, element(scalar.getElementType())));
    return broadcastLike(one, like);
  }
  static DType dtypeOfValue(Value v) { return *ir::dtypeOf(llvm::cast<RankedTensorType>(v.getType()).getElementType()); }
  static size_t rankOf(Value v) { return static_cast<size_t>(llvm::cast<RankedTensorType>(v.getType()).getRank()); }

 private:
  Value build(OpKind kind, const ir::AttrsAtSizes& attrs, ValueRange operands) {
    if (!symbols_) {
      std::vector<graph::TensorType> types;
      for (Value v : operands) types.push_back(*ir::typeOf(v.getType()));
      graph::TensorType result;
      graph::OpAttrs a = attrs({});
      std::string error = graph::inferResultType(kind, a, types, result);
      assert(error.empty() && "decomposition built an invalid op");
      (void)error;
      return ir::createOp(b_, loc_, kind, a, operands, result);
    }
    std::string error;
    std::optional<RankedTensorType> result =
        ir::inferSymbolicResultType(b_.getContext(), kind, attrs, operands.getTypes(), *symbols_, error);
    if (!result) {
      if (failure_.empty()) failure_ = std::string(graph::opName(kind)) + ": " + error;
      result = llvm::cast<RankedTensorType>(operands[0].getType());  // keeps the IR well-formed until the pass fails
    }
    graph::OpAttrs a = attrs(std::vector<int64_t>(symbols_->names.size(), 2));
    return ir::createOp(b_, loc_, kind, a, operands, *result);
  }

  OpBuilder& b_;
  Location loc_;
  const ir::Symbols* symbols_;
  std::string& failure_;
};

/// What every pattern shares: the function's symbols (null when it has none) and the first
/// failure of a symbolic inference.
struct DecomposeState {
  std::optional<ir::Symbols> symbols;
  std::string failure;
  const ir::Symbols* symbolsOrNull() const { return symbols ? &*symbols : nullptr; }
};

struct DecomposeSoftmax : OpRewritePattern<ir::SoftmaxOp> {
  DecomposeSoftmax(MLIRContext* context, DecomposeState& state) : OpRewritePattern(context), state(state) {}
  LogicalResult matchAndRewrite(ir::SoftmaxOp op, PatternRewriter& rewriter) const override {
    // An attention kernel computes its softmax itself (tg-fuse-attention).
    if (auto fusion = op->getParentOfType<ir::FusionOp>(); fusion && fusion.getKind() == ir::FusionKind::attention)
      return failure();
    Emitter e(rewriter, op.getLoc(), state.symbolsOrNull(), state.failure);
    DType dtype = Emitter::dtypeOfValue(op.getInput());
    int64_t axis = static_cast<int64_t>(op.getAxis());
    Value x = e.cast(op.getInput(), DType::F32);
    Value max = e.broadcastLike(e.reduceKeep(OpKind::ReduceMax, x, axis), x);
    Value ex = e.unary(OpKind::Exp, e.binary(OpKind::Sub, x, max));
    Value sum = e.broadcastLike(e.reduceKeep(OpKind::ReduceSum, ex, axis), x);
    rewriter.replaceOp(op, e.cast(e.binary(OpKind::Div, ex, sum), dtype));
    return success();
  }
  DecomposeState& state;
};

struct DecomposeLayerNorm : OpRewritePattern<ir::LayerNormOp> {
  DecomposeLayerNorm(MLIRContext* context, DecomposeState& state) : OpRewritePattern(context), state(state) {}
  LogicalResult matchAndRewrite(ir::LayerNormOp op, PatternRewriter& rewriter) const override {
    Emitter e(rewriter, op.getLoc(), state.symbolsOrNull(), state.failure);
    DType dtype = Emitter::dtypeOfValue(op.getInput());
    Value x = e.cast(op.getInput(), DType::F32);
    int64_t last = static_cast<int64_t>(Emitter::rankOf(x)) - 1;
    Value mean = e.broadcastLike(e.reduceKeep(OpKind::ReduceMean, x, last), x);
    Value d = e.binary(OpKind::Sub, x, mean);
    Value var = e.reduceKeep(OpKind::ReduceMean, e.binary(OpKind::Mul, d, d), last);
    double eps = op.getEpsilon().convertToDouble();
    Value inv = e.unary(OpKind::Rsqrt, e.binary(OpKind::Add, var, e.splatLike(eps, var)));
    Value y = e.binary(OpKind::Mul, d, e.broadcastLike(inv, x));
    // Weight and bias are widened after the broadcast (the same values): the cast is then an
    // elementwise op over the rows that fuses with its consumer, where a cast before it would
    // be read through the broadcast and so need a kernel of its own.
    if (Value w = op.getWeight())
      y = e.binary(OpKind::Mul, y, e.cast(e.broadcastLike(w, x), DType::F32));
    if (Value b = op.getBias())
      y = e.binary(OpKind::Add, y, e.cast(e.broadcastLike(b, x), DType::F32));
    rewriter.replaceOp(op, e.cast(y, dtype));
    return success();
  }
  DecomposeState& state;
};

struct TgDecomposeCompositesPass final
    : impl::TgDecomposeCompositesBase<TgDecomposeCompositesPass> {
  using Base::Base;
  void runOnOperation() override {
    DecomposeState state;
    std::string error;
    state.symbols = ir::symbolsOf(getOperation(), error);
    if (!error.empty()) {
      getOperation().emitError() << "tg-decompose: " << error;
      return signalPassFailure();
    }
    unsigned count = 0;
    getOperation().walk([&](Operation* op) {
      auto fusion = op->getParentOfType<ir::FusionOp>();
      if (isa<ir::SoftmaxOp, ir::LayerNormOp>(op) && !(fusion && fusion.getKind() == ir::FusionKind::attention))
        ++count;
    });
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeSoftmax, DecomposeLayerNorm>(&getContext(), state);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    if (!state.failure.empty()) {
      getOperation().emitError() << "tg-decompose: the result type of " << state.failure;
      return signalPassFailure();
    }
    numDecomposed += count;
  }
};

}  // namespace
}  // namespace tg
