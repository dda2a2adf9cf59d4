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
// position, a bias) come along with the ops that compute them, where nothing else reads those
// (elementwise ops and concats, at most kMaxCloned of them; layout ops, iotas and splat
// constants always), cloned into the region, where the kernel computes them per score; what
// is left is an input. So does q's cone (a rotary embedding of a projection's output), which
// the kernel computes as it reads q. k and v are inputs read through their cloned layout
// chains: a layer's window of a KV cache, the query heads of grouped-query attention folded
// into the rows of their key/value head.
//
// Whether the kernel takes the problem is tg/Dialect/Attention.h's to say (rows, head dims,
// scores per block on the target); k and v are read as contiguous windows of their inputs
// (rows of D elements, read whole): where they are not (a transpose splitting a projection's
// output into heads), an elementwise copy kernel before the attention writes them so. A softmax that reads a matmul's scores or feeds a matmul but is
// not fused gets a remark saying why; it is decomposed and fused as before.
//
//===----------------------------------------------------------------------===//
#include "tg/Dialect/SymbolicTypes.h"
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

/// An op the kernel computes per element where it reads it: elementwise, or a concat (of
/// values it computes per element too).
bool cheap(Operation* op) { return elementwise(op) || isa_and_nonnull<ir::ConcatOp>(op); }

/// The pieces of one attention.
struct Match {
  ir::MatmulOp scores, values;
  ir::SoftmaxOp softmax;
  SmallVector<Operation*> modify, post;  // e_1..e_n and f_1..f_m, in order
  /// The keys or values are not rows in memory: a copy kernel makes them so.
  bool copyKeys = false, copyValues = false;
};

/// Whether `v` is rows of an input in memory: reshapes of it, or a contiguous window of it
/// between static types (over dynamic dims a window's offset is not a number).
bool rowsInMemory(Value v) {
  const LayoutChain chain = traceLayout(v);
  if (chain.linear) return true;
  const bool staticTypes = llvm::none_of(chain.ops, [](Operation* op) {
    return ir::isSymbolic(op->getOperand(0).getType()) || ir::isSymbolic(op->getResult(0).getType());
  });
  return staticTypes && contiguousWindowOffset(chain).has_value();
}

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
std::string matchAttention(ir::SoftmaxOp softmax, int smVersion, int64_t maxCluster, bool decode, Match& m,
                           bool& looks) {
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
  // Keys or values read through a transpose, broadcast or strided slice (the heads split of
  // a projection's output) are first copied into rows (buildAttention): one pass over them,
  // against the scores' S x S per head through memory.
  m.copyKeys = !rowsInMemory(m.scores.getB());
  m.copyValues = !rowsInMemory(m.values.getB());
  const AttentionShape shape = attentionShape(m.scores, m.values);
  if (!decode && attentionKernel(shape) == AttentionKernel::decode)
    return whyNotSplitAttention(shape) + "; such decode-sized attention stays separate kernels (the cluster "
           "kernel is slower on the H200; JitOptions::decode_attention turns it on)";
  if (std::string why = whyNotAttentionKernel(shape, smVersion, maxCluster); !why.empty()) return why;
  return {};
}

/// Builds the attention fusion of `m` before its second matmul and erases what it replaces.
void buildAttention(Match m) {
  // Keys or values that are not rows in memory: a copy kernel (an elementwise fusion over
  // their layout chain) before the scores, read as rows by the attention kernel.
  // The copy goes before the matmul that reads it (where its chain is defined); the chain's
  // ops nothing else reads are erased.
  auto copyOperand = [&](ir::MatmulOp mm) {
    OpBuilder b(mm);
    Value old = mm.getB();
    const LayoutChain chain = traceLayout(old);
    ir::FusionOp copy = buildLayoutCopy(b, old);
    mm.getBMutable().assign(copy.getResult(0));
    for (Operation* op : chain.ops)  // from the value up to its root
      if (op->use_empty()) op->erase();
  };
  if (m.copyKeys) copyOperand(m.scores);
  if (m.copyValues) copyOperand(m.values);
  SmallVector<Operation*> moved;
  moved.push_back(m.scores);
  moved.append(m.modify.begin(), m.modify.end());
  moved.push_back(m.softmax);
  moved.append(m.post.begin(), m.post.end());
  moved.push_back(m.values);

  // The cone cloned with them: walking back from p @ v, an op joins when it feeds the kernel
  // and nothing else reads it (elementwise ops, concats: q's rotary embedding, a mask read
  // once), or when it costs nothing to recompute (layout ops, which the kernel reads
  // through; iotas; splat constants) wherever it is read. A value other kernels read too
  // (cos and sin shared by every layer, a mask all layers compare) stays theirs and is an
  // input, as are the keys' and values' roots.
  llvm::SmallPtrSet<Operation*, 32> inside(moved.begin(), moved.end());
  llvm::SmallPtrSet<Operation*, 4> fromMemory;
  for (Value kv : {m.scores.getB(), m.values.getB()})
    if (Operation* root = traceLayout(kv).root.getDefiningOp()) fromMemory.insert(root);
  int cloned = 0;
  for (Operation* op = m.values->getPrevNode(); op; op = op->getPrevNode()) {
    if (inside.contains(op) || fromMemory.contains(op) || op->getNumResults() != 1) continue;
    const auto users = op->getResult(0).getUsers();
    if (llvm::none_of(users, [&](Operation* u) { return inside.contains(u); })) continue;
    const bool trivial =
        isLayoutOp(op) || isa<ir::IotaOp>(op) || (isa<ir::ConstantOp>(op) && splatValue(op->getResult(0)));
    const bool exclusive = llvm::all_of(users, [&](Operation* u) { return inside.contains(u); });
    if (trivial || (cheap(op) && exclusive && cloned < kMaxCloned)) {
      inside.insert(op);
      ++cloned;
    }
  }
  SmallVector<Operation*> members;  // in program order
  for (Operation* op = m.scores->getBlock()->empty() ? nullptr : &m.scores->getBlock()->front(); op;
       op = op->getNextNode()) {
    if (inside.contains(op)) members.push_back(op);
    if (op == m.values.getOperation()) break;
  }
  llvm::SetVector<Value> inputs;
  for (Operation* op : members)
    for (Value v : op->getOperands())
      if (Operation* d = v.getDefiningOp(); !d || !inside.contains(d)) inputs.insert(v);

  OpBuilder b(m.values);
  auto fusion = ir::FusionOp::create(b, m.values.getLoc(), TypeRange{m.values.getType()},
                                     ir::FusionKind::attention, inputs.getArrayRef());
  Block* body = b.createBlock(&fusion.getBody());
  IRMapping map;
  for (Value in : inputs) map.map(in, body->addArgument(in.getType(), in.getLoc()));
  for (Operation* op : members) b.clone(*op, map);
  ir::YieldOp::create(b, m.values.getLoc(), ValueRange{map.lookup(m.values.getResult())});

  // Erase what moved, then the cone's originals nothing else reads.
  m.values.getResult().replaceAllUsesWith(fusion.getResult(0));
  for (Operation* op : llvm::reverse(members))
    if (op->use_empty()) op->erase();
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
      std::string why = matchAttention(softmax, sm, maxCluster, decode, m, looks);
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
