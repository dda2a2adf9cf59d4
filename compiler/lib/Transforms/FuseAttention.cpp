//===- FuseAttention.cpp - softmax(modify(q @ k^T)) @ v -> one attention kernel ===//
//
// Runs before the composites are decomposed, while a softmax is still one op. Finds
//   s = matmul(q, k) transpose_b        q [b..., M, D], k [b..., S, D]  -> s [b..., M, S]
//   t = e_n(... e_1(s, x_1) ..., x_n)    elementwise ops, each the only reader of the one before
//   p = softmax(t) over the keys (the last axis), read by the next op alone
//   u = f_m(... f_1(p, y_1) ..., y_m)    elementwise ops (a cast to bf16)
//   o = matmul(u, v)                    v [b..., S, Dv]                  -> o [b..., M, Dv]
// and moves it into one `tg.fusion attention`, so that the scores never reach memory. The
// other operands of the e_i and f_j (a scale, a causal mask compared from iotas and a
// position, a bias) come along: their layout chains, splat constants and cheap elementwise
// cones (at most kMaxCloned ops, down to inputs and other kernels' results) are cloned into
// the region, where the kernel computes them per score; what is left is an input. q, k and v
// are inputs read through their cloned layout chains: a layer's window of a KV cache, the
// query heads of grouped-query attention folded into the rows of their key/value head.
//
// Whether the kernel takes the problem is tg/Dialect/Attention.h's to say (rows, head dims,
// scores per block on the target); k and v must be contiguous windows of their inputs (rows
// of D elements, read whole). A softmax that reads a matmul's scores or feeds a matmul but is
// not fused gets a remark saying why; it is decomposed and fused as before.
//
//===----------------------------------------------------------------------===//
#include "tg/Dialect/Attention.h"
#include "tg/Dialect/LayoutChain.h"
#include "tg/Dialect/OpDescription.h"
#include "tg/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace tg {
#define GEN_PASS_DEF_TGFUSEATTENTION
#include "tg/Transforms/Passes.h.inc"
}  // namespace tg

using namespace mlir;

namespace tg {
namespace {

constexpr int kMaxCloned = 32;
constexpr int kMaxChain = 16;

std::optional<ir::OpDescription> elementwise(Operation* op) {
  if (!op || op->getNumResults() != 1 || isLayoutOp(op) || isIndexedRead(op)) return std::nullopt;
  std::optional<ir::OpDescription> d = ir::describeOp(op);
  if (!d || !graph::isElementwise(d->kind)) return std::nullopt;
  return d;
}

/// The number of ops of the cheap cone that computes `v` (layout ops, splat constants and
/// elementwise ops, down to values computed elsewhere), capped at `limit + 1`.
int coneSize(Value v, int limit) {
  Operation* def = v.getDefiningOp();
  if (!def || splatValue(v)) return 0;
  if (!isLayoutOp(def) && !elementwise(def)) return 0;
  int n = 1;
  for (Value operand : def->getOperands()) {
    if (n > limit) break;
    n += coneSize(operand, limit - n);
  }
  return n;
}

/// The pieces of one attention.
struct Match {
  ir::MatmulOp scores, values;
  ir::SoftmaxOp softmax;
  SmallVector<Operation*> modify, post;  // e_1..e_n and f_1..f_m, in order
};

/// Walks from the softmax's input back to the scores matmul (through elementwise ops, each of
/// one use, following the operand of the scores' shape that leads to a matmul).
ir::MatmulOp scoresOf(Value v, SmallVectorImpl<Operation*>& chain, int depth = 0) {
  Operation* def = v.getDefiningOp();
  if (!def || !v.hasOneUse() || depth > kMaxChain) return {};
  if (auto mm = dyn_cast<ir::MatmulOp>(def)) return mm;
  if (!elementwise(def)) return {};
  for (Value operand : def->getOperands()) {
    if (cast<RankedTensorType>(operand.getType()).getShape() != cast<RankedTensorType>(v.getType()).getShape())
      continue;
    SmallVector<Operation*> inner;
    if (ir::MatmulOp mm = scoresOf(operand, inner, depth + 1)) {
      chain.append(inner.begin(), inner.end());
      chain.push_back(def);
      return mm;
    }
  }
  return {};
}

/// Why `softmax` does not end an attention `m` builds (empty: it does); `looks` says whether
/// it reads a matmul's scores or feeds a matmul (a refusal worth a remark).
std::string matchAttention(ir::SoftmaxOp softmax, int smVersion, Match& m, bool& looks) {
  looks = false;
  auto type = cast<RankedTensorType>(softmax.getType());
  m.softmax = softmax;
  m.scores = scoresOf(softmax.getInput(), m.modify);
  // Forward: elementwise ops of one use each, then a matmul reading the result as its A.
  Value u = softmax.getResult();
  for (int i = 0; i <= kMaxChain && u.hasOneUse(); ++i) {
    Operation* user = *u.getUsers().begin();
    if (auto mm = dyn_cast<ir::MatmulOp>(user)) {
      if (mm.getA() == u) m.values = mm;
      break;
    }
    if (!elementwise(user) || cast<RankedTensorType>(user->getResult(0).getType()).getShape() != type.getShape())
      break;
    m.post.push_back(user);
    u = user->getResult(0);
  }
  looks = m.scores || m.values;
  if (!m.scores) return "its input is not computed from a matmul's scores by elementwise ops read once";
  if (!m.values) return "its result does not reach a matmul's left operand through elementwise ops read once";
  if (static_cast<int64_t>(softmax.getAxis()) != type.getRank() - 1)
    return "it normalizes over axis " + std::to_string(softmax.getAxis()) + ", not the keys (the last)";
  if (!m.scores.getTransposeB() || m.scores.getTransposeA())
    return "the scores are not q @ k^T with k stored [keys, dim]";
  if (m.values.getTransposeA() || m.values.getTransposeB())
    return "the values are not stored [keys, dim]";
  auto q = cast<RankedTensorType>(m.scores.getA().getType()), k = cast<RankedTensorType>(m.scores.getB().getType());
  auto v = cast<RankedTensorType>(m.values.getB().getType()), o = cast<RankedTensorType>(m.values.getType());
  const int64_t rank = type.getRank();
  if (q.getRank() != rank || k.getRank() != rank || v.getRank() != rank || o.getRank() != rank)
    return "q, k and v do not all have the scores' batch dims";
  for (auto t : {q, k, v, o})
    if (!t.getElementType().isBF16() && !t.getElementType().isF16() && !t.getElementType().isF32())
      return "the attention kernel takes bf16, f16 or f32 operands";
  for (Value kv : {m.scores.getB(), m.values.getB()})
    if (!contiguousWindowOffset(traceLayout(kv)))
      return "the " + std::string(kv == m.scores.getB() ? "keys" : "values") +
             " are read through a transpose, broadcast or strided slice, not as rows in memory";
  if (std::string why = whyNotAttentionKernel(attentionShape(m.scores, m.values), smVersion); !why.empty())
    return why;
  return {};
}

/// Builds the attention fusion of `m` before its second matmul and erases what it replaces.
void buildAttention(Match m) {
  SmallVector<Operation*> moved;
  moved.push_back(m.scores);
  moved.append(m.modify.begin(), m.modify.end());
  moved.push_back(m.softmax);
  moved.append(m.post.begin(), m.post.end());
  moved.push_back(m.values);
  llvm::SmallPtrSet<Operation*, 16> inGroup(moved.begin(), moved.end());

  // The region's inputs: what the cloned cones and layout chains bottom out in.
  llvm::SetVector<Value> inputs;
  llvm::SmallPtrSet<Operation*, 16> operandOps{m.scores, m.values};
  std::function<void(Value, bool)> collect = [&](Value v, bool cones) {
    Operation* def = v.getDefiningOp();
    if (def && inGroup.contains(def)) return;
    if (splatValue(v)) return;
    if (def && isLayoutOp(def)) return collect(def->getOperand(0), cones);
    if (def && cones && elementwise(def) && coneSize(v, kMaxCloned) <= kMaxCloned) {
      for (Value operand : def->getOperands()) collect(operand, cones);
      return;
    }
    inputs.insert(v);
  };
  for (Operation* op : moved)
    for (Value v : op->getOperands()) collect(v, !operandOps.contains(op));

  OpBuilder b(m.values);
  auto fusion = ir::FusionOp::create(b, m.values.getLoc(), TypeRange{m.values.getType()},
                                     ir::FusionKind::attention, inputs.getArrayRef());
  Block* body = b.createBlock(&fusion.getBody());
  IRMapping map;
  for (Value in : inputs) map.map(in, body->addArgument(in.getType(), in.getLoc()));
  std::function<Value(Value)> materialize = [&](Value v) -> Value {
    if (Value mapped = map.lookupOrNull(v)) return mapped;
    Operation* def = v.getDefiningOp();
    assert(def && "an attention operand that is neither an input nor computed here");
    for (Value operand : def->getOperands()) materialize(operand);
    return b.clone(*def, map)->getResult(0);
  };
  for (Operation* op : moved) {
    for (Value v : op->getOperands()) materialize(v);
    b.clone(*op, map);
  }
  ir::YieldOp::create(b, m.values.getLoc(), ValueRange{map.lookup(m.values.getResult())});

  // Erase the moved ops, then what only they read (the originals of the cloned cones).
  m.values.getResult().replaceAllUsesWith(fusion.getResult(0));
  SmallVector<Operation*> work;
  for (Operation* op : llvm::reverse(moved)) {
    for (Value v : op->getOperands())
      if (Operation* d = v.getDefiningOp(); d && !inGroup.contains(d)) work.push_back(d);
    op->dropAllUses();
    op->erase();
  }
  llvm::SmallPtrSet<Operation*, 16> erased;
  while (!work.empty()) {
    Operation* op = work.pop_back_val();
    if (erased.contains(op) || !op->use_empty() || op->getNumResults() != 1) continue;
    if (!isLayoutOp(op) && !elementwise(op) && !isa<ir::ConstantOp>(op)) continue;
    for (Value v : op->getOperands())
      if (Operation* d = v.getDefiningOp()) work.push_back(d);
    erased.insert(op);
    op->erase();
  }
}

struct TgFuseAttentionPass final : impl::TgFuseAttentionBase<TgFuseAttentionPass> {
  using Base::Base;

  void runOnOperation() override {
    const int sm = arch.size() > 3 ? std::atoi(arch.c_str() + 3) : 0;
    SmallVector<ir::SoftmaxOp> softmaxes;
    getOperation().walk([&](ir::SoftmaxOp op) {
      if (!op->getParentOfType<ir::FusionOp>()) softmaxes.push_back(op);
    });
    for (ir::SoftmaxOp softmax : softmaxes) {
      Match m;
      bool looks = false;
      std::string why = matchAttention(softmax, sm, m, looks);
      if (why.empty()) {
        buildAttention(m);
        ++numFused;
      } else if (looks && remarks) {
        softmax.emitRemark() << "not fused into an attention kernel: " << why;
      }
    }
  }
};

}  // namespace
}  // namespace tg
