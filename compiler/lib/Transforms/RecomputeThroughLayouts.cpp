//===- RecomputeThroughLayouts.cpp - Cheap producers recomputed by their readers ===//
//
// A kernel reads an input through a broadcast or slice for free (an index map), but
// a value computed in the same function and read that way must first be stored by a kernel of
// its own: its group computes each element at the group's index, and the reader needs it at
// another. For cheap elementwise values that kernel is pure overhead (a launch, a store and a
// load) and costs far more than computing the value again where it is read: a norm's weight
// cast to f32 and broadcast over the rows, a rotary embedding's halves sliced from a cast.
// So before grouping, tg-fuse moves such layout chains (broadcasts, slices and reshapes; not
// transposes, which the tiled transpose kernel stores best) above the elementwise op they read:
//   broadcast(cast(w))        ->  cast(broadcast(w))
//   slice(mul(cast(x), c))    ->  mul(cast(slice(x)), slice(c))
// repeatedly, up to inputs, constants and non-elementwise producers (matmuls, reductions,
// indexed reads, iotas). An op with other users stays for them: the layout's reader gets its
// own copy. At most kMaxRecomputed ops are copied for one layout, so a long chain is stored
// once rather than recomputed per broadcast element. A slice moved up also computes fewer
// elements. The values are the same: elementwise ops commute with index maps.
//
// An iota read through a layout chain is an iota of the reader's shape (along the dim its axis
// ends on; zeros when that dim has extent 1), so that the reader computes it at its own index
// instead of a kernel of its own storing it: positions broadcast over a mask, an arange
// broadcast over rotary angles.
//
// A concat reads each operand at an index it computes (an if-chain along its axis), so its
// operands come from memory. A cheap elementwise operand (the negated half of a rotary
// embedding, a cast) gets a copy of its own, marked `tg.recomputed`, that the concat's kernel
// computes in the operand's branch at the operand's index: no kernel stores it first.
//
//===----------------------------------------------------------------------===//
#include "FusionSteps.h"

#include "tg/Dialect/LayoutChain.h"
#include "tg/Dialect/OpDescription.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>

using namespace mlir;

namespace tg {
namespace {

constexpr int kMaxRecomputed = 8;

/// An elementwise op whose operands all have its result's shape (so a layout of its result is
/// the op applied to the same layout of each operand), and which computes from its operands
/// alone: not an iota (computed from its own index) nor an indexed read.
bool commutesWithLayouts(Operation* op) {
  if (!op || op->getNumResults() != 1 || op->getNumOperands() == 0) return false;
  if (isa<ir::IotaOp, ir::ConstantOp>(op) || isIndexedRead(op) || isLayoutOp(op)) return false;
  std::optional<ir::OpDescription> d = ir::describeOp(op);
  if (!d || !graph::isElementwise(d->kind)) return false;
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  for (Value v : op->getOperands())  // (over dynamic dims the sizes are the encoding)
    if (cast<RankedTensorType>(v.getType()).getShape() != type.getShape() ||
        cast<RankedTensorType>(v.getType()).getEncoding() != type.getEncoding())
      return false;
  return true;
}

/// `type`'s shape and sizes (its #tg.sizes encoding over dynamic dims) with `element`.
RankedTensorType withElement(Type type, Type element) {
  auto t = cast<RankedTensorType>(type);
  return RankedTensorType::get(t.getShape(), element, t.getEncoding());
}

/// The op that defines the value `v` is read from through layout ops (reshapes, broadcasts,
/// transposes, slices), and those layout ops from the one nearest it down to `v`'s.
Operation* rootThroughLayouts(Value v, SmallVectorImpl<Operation*>& chain) {
  Operation* def = v.getDefiningOp();
  while (def && isLayoutOp(def)) {
    chain.push_back(def);
    def = def->getOperand(0).getDefiningOp();
  }
  std::reverse(chain.begin(), chain.end());
  return def;
}

/// The size of the elementwise cone above `v` (through layout chains) that moving layouts up
/// would copy, capped at `limit + 1`.
int coneSize(Value v, int limit) {
  SmallVector<Operation*> chain;
  Operation* op = rootThroughLayouts(v, chain);
  if (!commutesWithLayouts(op)) return 0;
  int n = 1;
  for (Value operand : op->getOperands()) {
    if (n > limit) break;
    n += coneSize(operand, limit - n);
  }
  return n;
}

/// Moves the layout chain that ends in `layout` above the elementwise op it reads, then the
/// chains this creates above theirs; returns the ops copied or moved.
int pushUp(Operation* layout) {
  SmallVector<Operation*> chain;
  Operation* op = rootThroughLayouts(layout->getResult(0), chain);
  if (!commutesWithLayouts(op) || layout->use_empty()) return 0;
  OpBuilder b(layout);
  IRMapping operandMap;
  SmallVector<Operation*> ends;  // the last op of each copied chain
  for (Value operand : op->getOperands()) {
    if (operandMap.contains(operand)) continue;  // mul(x, x): one copy of the chain
    const Type element = cast<RankedTensorType>(operand.getType()).getElementType();
    // A splat constant: the same splat in the new shape (kernels read splats as literals); over
    // dynamic dims, where no constant has the shape, one element broadcast to it.
    if (DenseElementsAttr splat = splatValue(operand)) {
      const RankedTensorType type = withElement(layout->getResult(0).getType(), element);
      if (!type.getEncoding()) {
        operandMap.map(operand, ir::ConstantOp::create(b, layout->getLoc(),
                                                       DenseElementsAttr::get(type, splat.getSplatValue<Attribute>()))
                                    .getResult());
        continue;
      }
      auto scalar = RankedTensorType::get({}, element);
      Value one = ir::ConstantOp::create(b, layout->getLoc(), DenseElementsAttr::get(scalar, splat.getSplatValue<Attribute>()));
      operandMap.map(operand, ir::createOp(b, layout->getLoc(), graph::OpKind::Broadcast, graph::OpAttrs{}, one, type));
      continue;
    }
    // The chain again, over this operand, each result in the operand's element type.
    Value v = operand;
    for (Operation* link : chain) {
      IRMapping m;
      m.map(link->getOperand(0), v);
      Operation* copy = b.clone(*link, m);
      copy->getResult(0).setType(withElement(link->getResult(0).getType(), element));
      v = copy->getResult(0);
    }
    ends.push_back(v.getDefiningOp());
    operandMap.map(operand, v);
  }
  Operation* computed = b.clone(*op, operandMap);
  computed->getResult(0).setType(
      withElement(layout->getResult(0).getType(), cast<RankedTensorType>(op->getResult(0).getType()).getElementType()));
  layout->getResult(0).replaceAllUsesWith(computed->getResult(0));
  for (Operation* link : llvm::reverse(chain))
    if (link->use_empty()) link->erase();
  if (op->use_empty()) op->erase();
  int n = 1;
  for (Operation* end : ends) n += pushUp(end);
  return n;
}

/// A copy of the cheap elementwise cone that computes `v` (through layout chains), every op
/// of it marked kRecomputedAttr, ending in the same layout chain; leaves (inputs, constants,
/// other producers) are shared.
Value recomputedCopy(Value v, OpBuilder& b) {
  SmallVector<Operation*> chain;
  Operation* op = rootThroughLayouts(v, chain);
  if (!commutesWithLayouts(op)) return v;
  IRMapping m;
  for (Value operand : op->getOperands())
    if (!m.contains(operand)) m.map(operand, recomputedCopy(operand, b));  // mul(x, x): one copy
  Operation* copy = b.clone(*op, m);
  copy->setAttr(kRecomputedAttr, b.getUnitAttr());
  Value cur = copy->getResult(0);
  for (Operation* link : chain) {
    IRMapping lm;
    lm.map(link->getOperand(0), cur);
    cur = b.clone(*link, lm)->getResult(0);
  }
  return cur;
}

/// Erases `op` and then the elementwise ops, layouts and constants it alone used. A worklist,
/// not recursion over operands: an op can reach one producer twice (mul(x, x), or x and
/// exp(x)), and the second visit must not touch what the first erased.
void eraseUnused(Operation* root) {
  auto erasable = [](Operation* op) {
    return op && op->use_empty() && (commutesWithLayouts(op) || isLayoutOp(op) || isa<ir::ConstantOp>(op));
  };
  llvm::SmallPtrSet<Operation*, 16> erased;  // nothing is created here, so no address is reused
  SmallVector<Operation*> work{root};
  while (!work.empty()) {
    Operation* op = work.pop_back_val();
    if (erased.contains(op) || !erasable(op)) continue;
    for (Value v : op->getOperands())
      if (Operation* d = v.getDefiningOp()) work.push_back(d);
    op->erase();
    erased.insert(op);
  }
}

/// The axis of `layout`'s shape along which an iota read through `chain` (layout ops from the
/// iota up to `layout`, the iota's axis `axis`) counts: element o of the layout is o[result]
/// of an iota of the layout's shape, or 0 everywhere (-1) when the counted dim reaches extent
/// 1. Nothing when the chain mixes the counted dim with others (a reshape that splits or
/// merges it) or moves it (a slice that does not start at 0 with step 1).
std::optional<int64_t> iotaAxisThrough(ArrayRef<Operation*> chain, int64_t axis, ArrayRef<int64_t> iotaShape) {
  SmallVector<int64_t> shape(iotaShape);
  int64_t a = shape[axis] == 1 ? -1 : axis;
  for (Operation* link : chain) {
    ArrayRef<int64_t> out = cast<RankedTensorType>(link->getResult(0).getType()).getShape();
    if (a >= 0) {
      if (auto b = dyn_cast<ir::BroadcastOp>(link)) {
        a = b.getDims()[a];
      } else if (auto t = dyn_cast<ir::TransposeOp>(link)) {
        ArrayRef<int64_t> perm = t.getPerm();
        a = std::find(perm.begin(), perm.end(), a) - perm.begin();
      } else if (auto sl = dyn_cast<ir::SliceOp>(link)) {
        if (sl.getStarts()[a] != 0 || sl.getSteps()[a] != 1) return std::nullopt;
      } else {  // reshape: the counted dim whole, after as many elements as before it
        int64_t before = 1, outBefore = 1, found = -1;
        for (int64_t d = 0; d < a; ++d) before *= shape[d];
        for (int64_t j = 0; j < static_cast<int64_t>(out.size()) && outBefore <= before; outBefore *= out[j++])
          if (outBefore == before && out[j] == shape[a]) {
            found = j;
            break;
          }
        if (found < 0) return std::nullopt;
        a = found;
      }
      if (out[a] == 1) a = -1;
    }
    shape.assign(out.begin(), out.end());
  }
  return a;
}

}  // namespace

int recomputeIotasThroughLayouts(Block& block) {
  SmallVector<Operation*> layouts;  // the last op of each chain over an iota
  for (Operation& op : block) {
    if (!isLayoutOp(&op) || op.use_empty() || llvm::all_of(op.getUsers(), [](Operation* u) { return isLayoutOp(u); }))
      continue;
    SmallVector<Operation*> chain;
    if (isa_and_nonnull<ir::IotaOp>(rootThroughLayouts(op.getResult(0), chain))) layouts.push_back(&op);
  }
  int replaced = 0;
  for (Operation* layout : layouts) {
    SmallVector<Operation*> chain;
    auto iota = cast<ir::IotaOp>(rootThroughLayouts(layout->getResult(0), chain));
    auto iotaType = cast<RankedTensorType>(iota.getType());
    std::optional<int64_t> axis = iotaAxisThrough(chain, static_cast<int64_t>(iota.getAxis()), iotaType.getShape());
    if (!axis) continue;
    auto type = cast<RankedTensorType>(layout->getResult(0).getType());
    OpBuilder b(layout);
    Value computed =
        *axis >= 0
            ? ir::IotaOp::create(b, layout->getLoc(), type, b.getI64IntegerAttr(*axis)).getResult()
            : ir::ConstantOp::create(b, layout->getLoc(), DenseElementsAttr::get(type, b.getZeroAttr(type.getElementType())))
                  .getResult();
    layout->getResult(0).replaceAllUsesWith(computed);
    for (Operation* link : llvm::reverse(chain))
      if (link->use_empty()) link->erase();
    if (iota->use_empty()) iota->erase();
    ++replaced;
  }
  return replaced;
}

int recomputeConcatOperands(Block& block) {
  SmallVector<ir::ConcatOp> concats;
  for (Operation& op : block)
    if (auto c = dyn_cast<ir::ConcatOp>(op)) concats.push_back(c);
  int recomputed = 0;
  for (ir::ConcatOp concat : concats) {
    OpBuilder b(concat);
    for (OpOperand& use : concat->getOpOperands()) {
      const int cone = coneSize(use.get(), kMaxRecomputed);
      if (cone == 0 || cone > kMaxRecomputed) continue;
      Value old = use.get();
      use.set(recomputedCopy(old, b));
      eraseUnused(old.getDefiningOp());
      recomputed += cone;
    }
  }
  return recomputed;
}

int recomputeThroughLayouts(Block& block) {
  // The last op of each layout chain that holds a broadcast or slice (a chain of reshapes
  // alone is read in place already). Not through transposes: a transposed value is stored
  // once by the tiled transpose kernel, whose reads and writes are both coalesced, where a
  // reader recomputing it would read its operands across the rows.
  SmallVector<Operation*> layouts;
  for (Operation& op : block) {
    if (!isLayoutOp(&op) || op.use_empty() || llvm::all_of(op.getUsers(), [](Operation* u) { return isLayoutOp(u); }))
      continue;
    SmallVector<Operation*> chain;
    rootThroughLayouts(op.getResult(0), chain);
    if (llvm::any_of(chain, [](Operation* l) { return isa<ir::BroadcastOp, ir::SliceOp>(l); }) &&
        llvm::none_of(chain, [](Operation* l) { return isa<ir::TransposeOp>(l); }))
      layouts.push_back(&op);
  }
  int recomputed = 0;
  for (Operation* layout : layouts) {
    const int cone = coneSize(layout->getOperand(0), kMaxRecomputed);
    if (cone == 0 || cone > kMaxRecomputed) continue;
    recomputed += pushUp(layout);
  }
  return recomputed;
}

}  // namespace tg
