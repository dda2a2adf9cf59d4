//===- DecomposeComposites.cpp - softmax / layer_norm -> primitives -------===//
//
// Rewrites the composite ops into reductions and elementwise ops that the fuser groups into
// kernels. bf16/f16 inputs are widened to f32 for the whole computation and the result is
// rounded once at the end, as the reference computes them.
//
//===----------------------------------------------------------------------===//
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

/// Builds tg ops by kind, inferring result types with the shared shape rules.
class Emitter {
 public:
  Emitter(OpBuilder& b, Location loc) : b_(b), loc_(loc) {}

  Value op(OpKind kind, graph::OpAttrs attrs, ValueRange operands) {
    std::vector<graph::TensorType> types;
    for (Value v : operands) types.push_back(*ir::typeOf(v.getType()));
    graph::TensorType result;
    std::string error = graph::inferResultType(kind, attrs, types, result);
    assert(error.empty() && "decomposition built an invalid op");
    (void)error;
    return ir::createOp(b_, loc_, kind, attrs, operands, result);
  }
  Value unary(OpKind kind, Value x) { return op(kind, {}, {x}); }
  Value binary(OpKind kind, Value x, Value y) { return op(kind, {}, {x, y}); }

  Value cast(Value x, DType dtype) {
    if (type(x).dtype == dtype) return x;
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
  /// Broadcasts `x` (same rank, or rank 1 aligned to the last dim) to `shape`.
  Value broadcast(Value x, const Shape& shape) {
    graph::OpAttrs attrs;
    attrs.shape = shape;
    attrs.dims = graph::trailingDims(type(x).shape.size(), shape.size());
    return op(OpKind::Broadcast, attrs, {x});
  }
  Value splat(double value, const graph::TensorType& t) {
    auto type = ir::tensorTypeOf(b_.getContext(), t);
    Attribute element = isa<FloatType>(type.getElementType())
                            ? Attribute(b_.getFloatAttr(type.getElementType(), value))
                            : Attribute(b_.getIntegerAttr(type.getElementType(), (int64_t)value));
    return ir::ConstantOp::create(b_, loc_, DenseElementsAttr::get(type, element));
  }
  static graph::TensorType type(Value v) { return *ir::typeOf(v.getType()); }

 private:
  OpBuilder& b_;
  Location loc_;
};

struct DecomposeSoftmax : OpRewritePattern<ir::SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ir::SoftmaxOp op, PatternRewriter& rewriter) const override {
    // An attention kernel computes its softmax itself (tg-fuse-attention).
    if (auto fusion = op->getParentOfType<ir::FusionOp>(); fusion && fusion.getKind() == ir::FusionKind::attention)
      return failure();
    Emitter e(rewriter, op.getLoc());
    DType dtype = Emitter::type(op.getInput()).dtype;
    int64_t axis = static_cast<int64_t>(op.getAxis());
    Value x = e.cast(op.getInput(), DType::F32);
    Shape shape = Emitter::type(x).shape;
    Value max = e.broadcast(e.reduceKeep(OpKind::ReduceMax, x, axis), shape);
    Value ex = e.unary(OpKind::Exp, e.binary(OpKind::Sub, x, max));
    Value sum = e.broadcast(e.reduceKeep(OpKind::ReduceSum, ex, axis), shape);
    rewriter.replaceOp(op, e.cast(e.binary(OpKind::Div, ex, sum), dtype));
    return success();
  }
};

struct DecomposeLayerNorm : OpRewritePattern<ir::LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ir::LayerNormOp op, PatternRewriter& rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    DType dtype = Emitter::type(op.getInput()).dtype;
    Value x = e.cast(op.getInput(), DType::F32);
    graph::TensorType t = Emitter::type(x);
    int64_t last = static_cast<int64_t>(t.shape.size()) - 1;
    Value mean = e.broadcast(e.reduceKeep(OpKind::ReduceMean, x, last), t.shape);
    Value d = e.binary(OpKind::Sub, x, mean);
    Value var = e.reduceKeep(OpKind::ReduceMean, e.binary(OpKind::Mul, d, d), last);
    double eps = op.getEpsilon().convertToDouble();
    Value inv = e.unary(OpKind::Rsqrt,
                        e.binary(OpKind::Add, var, e.splat(eps, Emitter::type(var))));
    Value y = e.binary(OpKind::Mul, d, e.broadcast(inv, t.shape));
    // Weight and bias are widened after the broadcast (the same values): the cast is then an
    // elementwise op over the rows that fuses with its consumer, where a cast before it would
    // be read through the broadcast and so need a kernel of its own.
    if (Value w = op.getWeight())
      y = e.binary(OpKind::Mul, y, e.cast(e.broadcast(w, t.shape), DType::F32));
    if (Value b = op.getBias())
      y = e.binary(OpKind::Add, y, e.cast(e.broadcast(b, t.shape), DType::F32));
    rewriter.replaceOp(op, e.cast(y, dtype));
    return success();
  }
};

struct TgDecomposeCompositesPass final
    : impl::TgDecomposeCompositesBase<TgDecomposeCompositesPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(ir::refuseDynamicDims(getOperation(), "tg-decompose"))) return signalPassFailure();
    unsigned count = 0;
    getOperation().walk([&](Operation* op) {
      auto fusion = op->getParentOfType<ir::FusionOp>();
      if (isa<ir::SoftmaxOp, ir::LayerNormOp>(op) && !(fusion && fusion.getKind() == ir::FusionKind::attention))
        ++count;
    });
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeSoftmax, DecomposeLayerNorm>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    numDecomposed += count;
  }
};

}  // namespace
}  // namespace tg
