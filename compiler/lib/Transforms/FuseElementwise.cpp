//===- FuseElementwise.cpp - Group elementwise ops into tg.fusion kernels -===//
//
// Decide, then build (as IREE's FormDispatchRegions):
//  Phase 1 puts elementwise ops into groups with union-find, walking producer -> consumer
//  edges in program order. Layout chains (broadcast/transpose/reshape) are not group members:
//  they fold into the reads of their consumers. An edge joins two groups only if the value is
//  read at the consumer's own index (a linear chain), neither group reads the other's values
//  through a non-linear map, and the merged group would not form a cycle with other kernels.
//  Every refused edge remembers why. A matmul is a group member too: elementwise consumers
//  that read its result at their own index join it as its epilogue (bias, activation,
//  residual, scale, cast), one matmul per group, every other member over the matmul's output
//  elements, none computing the matmul's operands (no prologue). With fuse-reductions, a
//  reduction over trailing dims is a member too (RowDomain.h): its producers over the rows,
//  and consumers reading its result through a row broadcast, form one row kernel.
//  Phase 2 builds one isolated tg.fusion region per group (inputs are the roots of the values
//  read; layout chains and splat constants are cloned inside; `gemm` when it holds a matmul),
//  wraps each reduction and check in a single-op region of its kind, materializes layout values that a matmul or the function
//  result needs in memory, and emits a remark for each refused edge.
//
//===----------------------------------------------------------------------===//
#include "FusionSteps.h"

#include "tg/Compiler/Context.h"
#include "tg/Dialect/EntryFunction.h"
#include "tg/Dialect/OpDescription.h"
#include "tg/Dialect/LayoutChain.h"
#include "tg/Transforms/Passes.h"

#include "tg/Dialect/RowDomain.h"
#include "tg/Dialect/SymbolicTypes.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace tg {
#define GEN_PASS_DEF_TGFUSEELEMENTWISE
#include "tg/Transforms/Passes.h.inc"
}  // namespace tg

using namespace mlir;

namespace tg {
namespace {

bool isElementwiseOp(Operation* op) {
  std::optional<ir::OpDescription> d = ir::describeOp(op);
  return d && graph::isElementwise(d->kind);
}

/// A compute op that becomes (part of) a kernel: not a layout op, constant or terminator.
bool isKernelOp(Operation* op) {
  return op && !isLayoutOp(op) && !isa<ir::ConstantOp, ir::SizeOp, func::ReturnOp>(op);
}

/// The element count of `op`'s result, and R of `rows`, as text (polynomials over dynamic dims).
std::string numelText(Operation* op) {
  std::vector<std::string> names;
  return elementCount(op->getResult(0).getType(), names).str(names);
}
std::string rowsText(MLIRContext* context, const RowDomain& rows) {
  std::vector<std::string> names;
  return rowCount(context, rows, names).str(names);
}

std::string locText(Location loc) {
  SourceLoc s = ir::sourceLocOf(loc);
  return s.known() ? s.str() : std::string("<unknown>");
}

/// Phase 1: the grouping decision, kept separate from the IR so it can be printed and tested.
class FusionPlan {
 public:
  FusionPlan(Block& block, bool fuse, bool fuseReductions) : block_(block), fuseReductions_(fuseReductions) {
    decide(fuse);
  }

  /// Groups of elementwise ops (with at most one matmul, whose epilogue they form), each in
  /// program order; groups ordered by first member.
  std::vector<SmallVector<Operation*>> groups() const {
    llvm::MapVector<Operation*, SmallVector<Operation*>> byLeader;
    for (Operation& op : block_)
      if (classes_.contains(&op)) byLeader[classes_.getLeaderValue(&op)].push_back(&op);
    std::vector<SmallVector<Operation*>> out;
    for (auto& [leader, members] : byLeader) out.push_back(members);
    return out;
  }

  struct Refusal {
    Operation* producer;
    Operation* consumer;
    std::string reason;
  };
  /// Edges between elementwise-kernel ops that ended up in different kernels, with the reason.
  std::vector<Refusal> refusals() const {
    std::vector<Refusal> out;
    for (const Refusal& r : refusals_)
      if (!sameGroup(r.producer, r.consumer)) out.push_back(r);
    return out;
  }

 private:
  bool sameGroup(Operation* a, Operation* b) const {
    return classes_.contains(a) && classes_.contains(b) &&
           classes_.getLeaderValue(a) == classes_.getLeaderValue(b);
  }
  Operation* leader(Operation* op) const {
    return classes_.contains(op) ? classes_.getLeaderValue(op) : op;
  }
  SmallVector<Operation*> members(Operation* op) const {
    SmallVector<Operation*> out;
    if (!classes_.contains(op)) return {op};
    for (auto it = classes_.findLeader(op); it != classes_.member_end(); ++it) out.push_back(*it);
    return out;
  }

  /// The kernel ops that read `op`'s results (through layout chains).
  void consumersOf(Operation* op, SmallVectorImpl<Operation*>& out) const {
    SmallVector<Value> work(op->getResults().begin(), op->getResults().end());
    while (!work.empty()) {
      Value v = work.pop_back_val();
      for (Operation* user : v.getUsers()) {
        if (isLayoutOp(user))
          work.push_back(user->getResult(0));
        else if (isKernelOp(user))
          out.push_back(user);
      }
    }
  }

  /// True if a path leaves group `from` and reaches group `to` through another kernel. decide()
  /// visits ops in program order and groups an op only with earlier ones, so every op after
  /// the one it is deciding (`current_`) is still a kernel of its own, whose consumers come
  /// later still: no path through it returns to the groups being asked about, and the search
  /// stops there. (Without that it walked the rest of the function for every edge.)
  bool reachesThroughOther(Operation* from, Operation* to) const {
    Operation* fromLeader = leader(from);
    Operation* toLeader = leader(to);
    llvm::DenseSet<Operation*> visited;
    SmallVector<Operation*> work;
    auto pushSuccessors = [&](Operation* groupLeader, bool skipTarget) {
      SmallVector<Operation*> consumers;
      for (Operation* m : members(groupLeader)) consumersOf(m, consumers);
      for (Operation* c : consumers) {
        if (current_ && c->getBlock() == current_->getBlock() && current_->isBeforeInBlock(c)) continue;
        Operation* l = leader(c);
        if (l == groupLeader || (skipTarget && l == toLeader)) continue;
        if (visited.insert(l).second) work.push_back(l);
      }
    };
    pushSuccessors(fromLeader, /*skipTarget=*/true);
    while (!work.empty()) {
      Operation* g = work.pop_back_val();
      if (g == toLeader) return true;
      pushSuccessors(g, /*skipTarget=*/false);
    }
    return false;
  }

  /// Producers whose values a group reads through a non-linear index map; in a row kernel over
  /// `rows`, not those of one value per row read through a row broadcast (the kernel holds them).
  llvm::DenseSet<Operation*> mappedProducers(Operation* op, const std::optional<RowDomain>& rows) const {
    llvm::DenseSet<Operation*> out;
    for (Operation* m : members(op))
      for (Value v : m->getOperands()) {
        LayoutChain chain = traceLayout(v);
        if (chain.linear && !isIndexedRead(m)) continue;  // those read at computed indices
        Operation* def = chain.root.getDefiningOp();
        if (!def) continue;
        if (rows && isRowBroadcast(chain, *rows) && rowRoleOf(def, *rows) == RowRole::Row) continue;
        out.insert(def);
      }
    return out;
  }

  /// The rows the group of `op` reduces, if it holds a reduction.
  std::optional<RowDomain> rowsOf(Operation* op) const {
    auto it = rows_.find(leader(op));
    if (it == rows_.end()) return std::nullopt;
    return it->second;
  }

  /// Why the groups of `a` and `b` cannot form one row kernel (empty if they can, or if
  /// neither holds a reduction): the same rows, no matmul, every member a full or a row op.
  std::string whyNotRows(Operation* a, Operation* b) const {
    std::optional<RowDomain> ra = rowsOf(a), rb = rowsOf(b);
    if (!ra && !rb) return {};
    if (ra && rb && !(*ra == *rb))
      return "the two kernels reduce different rows (" + rowsText(a->getContext(), *ra) + " x " +
             std::to_string(ra->length) + " and " + rowsText(a->getContext(), *rb) + " x " +
             std::to_string(rb->length) + ")";
    const RowDomain& rows = ra ? *ra : *rb;
    if (Operation* c = indexedReadOf(a) ? indexedReadOf(a) : indexedReadOf(b))
      return "the " + c->getName().stripDialect().str() + " at " + locText(c->getLoc()) +
             " is computed in an elementwise kernel, not a row kernel";
    if (ir::MatmulOp mm = matmulOf(matmulOf(a) ? a : b))
      return "the matmul at " + locText(mm->getLoc()) +
             " and a reduction are not one kernel (a row kernel reads its input from memory, "
             "a matmul's epilogue computes each element without its row)";
    for (Operation* side : {a, b})
      for (Operation* m : members(side))
        if (rowRoleOf(m, rows) == RowRole::None)
          return "'" + m->getName().getStringRef().str() + "' at " + locText(m->getLoc()) +
                 " has " + numelText(m) + " elements, neither the reduced " +
                 "rows' shape nor one per row (" + rowsText(m->getContext(), rows) + ")";
    return {};
  }

  /// Why the groups of `producer` and `consumer` cannot merge (empty if they can).
  std::string whyNotMerge(Operation* producer, Operation* consumer) const {
    std::optional<RowDomain> rows = rowsOf(producer);
    if (!rows) rows = rowsOf(consumer);
    if (std::string why = whyNotRows(producer, consumer); !why.empty()) return why;
    llvm::DenseSet<Operation*> readA = mappedProducers(producer, rows),
                               readB = mappedProducers(consumer, rows);
    for (Operation* m : members(producer))
      if (readB.contains(m))
        return "the consumer's kernel also reads '" + m->getName().getStringRef().str() +
               "' at " + locText(m->getLoc()) +
               " through a broadcast/transpose, so that value must be materialized";
    for (Operation* m : members(consumer))
      if (readA.contains(m))
        return "the producer's kernel reads '" + m->getName().getStringRef().str() + "' at " +
               locText(m->getLoc()) + " through a broadcast/transpose";
    if (reachesThroughOther(producer, consumer) || reachesThroughOther(consumer, producer))
      return "fusing would create a cycle: another kernel (e.g. a reduction) sits between them";
    return whyNotEpilogue(producer, consumer);
  }

  /// An op of `op`'s group that reads at computed indices (isIndexedRead), if any.
  Operation* indexedReadOf(Operation* op) const {
    for (Operation* m : members(op))
      if (isIndexedRead(m)) return m;
    return nullptr;
  }

  /// The matmul of `op`'s group, if any.
  ir::MatmulOp matmulOf(Operation* op) const {
    for (Operation* m : members(op))
      if (auto mm = dyn_cast<ir::MatmulOp>(m)) return mm;
    return {};
  }

  /// Why the groups of `a` and `b` cannot form one matmul kernel with an epilogue (empty if
  /// they can, or if neither holds a matmul): one matmul per kernel, every other member over
  /// the matmul's output elements, and nothing the matmul reads (no prologue).
  std::string whyNotEpilogue(Operation* a, Operation* b) const {
    ir::MatmulOp ma = matmulOf(a), mb = matmulOf(b);
    if (ma && mb) return "both kernels hold a matmul (one matmul per kernel)";
    ir::MatmulOp mm = ma ? ma : mb;
    if (!mm) return {};
    if (Operation* c = indexedReadOf(a) ? indexedReadOf(a) : indexedReadOf(b))
      return "the " + c->getName().stripDialect().str() + " at " + locText(c->getLoc()) +
             " is computed in an elementwise kernel, not a matmul epilogue";
    std::vector<std::string> names;  // element counts as polynomials (over dynamic dims)
    const SizeExpr numel = elementCount(mm.getType(), names);
    llvm::SmallPtrSet<Operation*, 4> operandProducers;
    for (Value v : mm->getOperands())
      if (Operation* def = traceLayout(v).root.getDefiningOp()) operandProducers.insert(def);
    for (Operation* side : {a, b})
      for (Operation* m : members(side)) {
        if (m == mm.getOperation()) continue;
        if (operandProducers.contains(m))
          return "'" + m->getName().getStringRef().str() + "' at " + locText(m->getLoc()) +
                 " computes an operand of the matmul at " + locText(mm->getLoc()) +
                 ", which reads its operands from memory (no prologue fusion)";
        if (elementCount(m->getResult(0).getType(), names) != numel)
          return "'" + m->getName().getStringRef().str() + "' at " + locText(m->getLoc()) +
                 " has " + numelText(m) + " elements, not the " + numel.str(names) +
                 " of the matmul's result that its epilogue computes";
      }
    return {};
  }

  /// A reduction that can be a row kernel's member (fuse-reductions, over trailing dims).
  /// Few, long rows stay a reduction kernel of their own, which splits each row over blocks
  /// (a row kernel gives a row at most a cluster: 8 of the GPU's SMs).
  std::optional<RowDomain> rowReduction(Operation* op) const {
    if (!fuseReductions_) return std::nullopt;
    std::optional<RowDomain> rows = rowDomainOf(op);
    if (rows && isFewLongRows(*rows)) return std::nullopt;
    return rows;
  }
  /// (Over dynamic dims R is not known here: rows longer than that stay a kernel of their own.)
  static bool isFewLongRows(const RowDomain& rows) { return rows.rows < 8 && rows.length > 16384; }

  void decide(bool fuse) {
    for (Operation& op : block_)
      if (isElementwiseOp(&op) || isa<ir::MatmulOp>(op)) {
        classes_.insert(&op);
      } else if (std::optional<RowDomain> rows = rowReduction(&op)) {
        classes_.insert(&op);
        rows_[&op] = *rows;
      }
    for (Operation& op : block_) {
      current_ = &op;
      const bool rowMember = rowReduction(&op).has_value();
      if (isKernelOp(&op) && !isElementwiseOp(&op) && !rowMember) {
        // Matmuls, and reductions outside row kernels, read their operands from memory.
        const bool reduction = isReductionOp(&op);
        std::optional<RowDomain> rows = reduction ? rowDomainOf(&op) : std::nullopt;
        const std::string why =
            rows && fuseReductions_
                ? "a '" + op.getName().getStringRef().str() + "' over " + rowsText(op.getContext(), *rows) +
                      " long row(s) of " + std::to_string(rows->length) +
                      " runs split over blocks as its own kernel, reading its operand from memory"
            : reduction && fuseReductions_
                ? "a '" + op.getName().getStringRef().str() +
                      "' over leading dims (not a row) reads its operand from memory"
                : "a '" + op.getName().getStringRef().str() +
                      "' reads its operands from memory (no prologue fusion" +
                      (reduction ? std::string(" without fuse-reductions)") : std::string(")"));
        llvm::SmallPtrSet<Operation*, 4> seen;  // one remark per producer (x @ x reads x twice)
        for (Value v : op.getOperands())
          if (Operation* producer = traceLayout(v).root.getDefiningOp();
              producer && isElementwiseOp(producer) && seen.insert(producer).second)
            refusals_.push_back({producer, &op, why});
        continue;
      }
      if (!isElementwiseOp(&op) && !rowMember) continue;
      for (Value v : op.getOperands()) {
        LayoutChain chain = traceLayout(v);
        Operation* producer = chain.root.getDefiningOp();
        if (!isKernelOp(producer)) continue;  // argument or constant: an input
        if (sameGroup(producer, &op)) continue;
        // A concat operand's own copy (kRecomputedAttr) is computed inside the concat's kernel,
        // at the concat's index; what it reads comes from memory.
        if (isRecomputed(producer)) {
          unite(producer, &op);
          continue;
        }
        if (isRecomputed(&op)) {
          refusals_.push_back({producer, &op,
                               "the value is read by a concat's operand, which the concat's kernel computes "
                               "at the index it reads it, from values in memory"});
          continue;
        }
        // A value of one per row, read back over the rows of the group that made it.
        std::optional<RowDomain> producerRows = rowsOf(producer);
        const bool rowRead = !chain.linear && producerRows && isRowBroadcast(chain, *producerRows) &&
                             rowRoleOf(producer, *producerRows) == RowRole::Row;
        std::string reason;
        if (!classes_.contains(producer))
          reason = "the producer is a '" + producer->getName().getStringRef().str() +
                   "', which runs as its own kernel";
        else if (isIndexedRead(&op))
          reason = "a '" + op.getName().getStringRef().str() +
                   "' reads its operands from memory at an index it computes, so each operand is "
                   "materialized by its own kernel first";
        else if (isa<ir::DynamicUpdateSliceOp>(producer))
          reason = "a dynamic_update_slice is a kernel of its own, so that it can update its "
                   "input's memory in place (tg-assign-buffers)";
        else if (!chain.linear && !rowRead)
          reason = isa<ir::MatmulOp>(producer)
                       ? "the matmul's result is read through a broadcast/transpose, so it is "
                         "stored first and read by another kernel"
                       : "the value is read through a broadcast/transpose, so it is materialized "
                         "by its own kernel first";
        else if (!fuse)
          reason = "fusion is disabled (fuse = false)";
        else
          reason = whyNotMerge(producer, &op);
        if (reason.empty())
          unite(producer, &op);
        else
          refusals_.push_back({producer, &op, reason});
      }
    }
  }

  /// Merges the groups of `a` and `b`; the merged group keeps the rows either reduced.
  void unite(Operation* a, Operation* b) {
    std::optional<RowDomain> rows = rowsOf(a);
    if (!rows) rows = rowsOf(b);
    rows_.erase(leader(a));
    rows_.erase(leader(b));
    classes_.unionSets(a, b);
    if (rows) rows_[leader(a)] = *rows;
  }

  Block& block_;
  const bool fuseReductions_;
  llvm::EquivalenceClasses<Operation*> classes_;
  llvm::DenseMap<Operation*, RowDomain> rows_;  // by group leader: the rows a group reduces
  std::vector<Refusal> refusals_;
  Operation* current_ = nullptr;  // the op decide() is deciding
};

/// Phase 2: builds a tg.fusion region around `members` (in program order), reading external
/// values through cloned layout chains, and redirects outside uses to its results.
void buildFusion(ArrayRef<Operation*> members, ir::FusionKind kind) {
  llvm::SmallPtrSet<Operation*, 16> inGroup(members.begin(), members.end());
  Operation* last = members.back();
  OpBuilder b(last->getContext());

  // Inputs: the roots of every value the members read, except splat constants (cloned).
  llvm::SetVector<Value> inputs;
  for (Operation* m : members)
    for (Value v : m->getOperands()) {
      LayoutChain chain = traceLayout(v);
      Operation* def = chain.root.getDefiningOp();
      if (def && inGroup.contains(def)) continue;
      if (isClonedScalar(chain.root)) continue;
      inputs.insert(chain.root);
    }

  // Outputs: member results used by anything outside the group (through layout chains too).
  SmallVector<Value> outputs;
  for (Operation* m : members)
    for (Value r : m->getResults()) {
      bool external = false;
      SmallVector<Value> work{r};
      while (!work.empty() && !external) {
        Value v = work.pop_back_val();
        for (Operation* user : v.getUsers()) {
          if (isLayoutOp(user)) {
            work.push_back(user->getResult(0));
          } else if (!inGroup.contains(user)) {
            external = true;
          }
        }
      }
      if (external) outputs.push_back(r);
    }

  b.setInsertionPointAfter(last);
  SmallVector<Type> resultTypes;
  for (Value v : outputs) resultTypes.push_back(v.getType());
  auto fusion = ir::FusionOp::create(b, last->getLoc(), resultTypes, kind, inputs.getArrayRef());
  Block* body = b.createBlock(&fusion.getBody());
  IRMapping map;
  for (Value in : inputs) map.map(in, body->addArgument(in.getType(), in.getLoc()));

  // Clones the layout chain (or splat constant) that produces `v` from mapped values.
  std::function<Value(Value)> materialize = [&](Value v) -> Value {
    if (Value mapped = map.lookupOrNull(v)) return mapped;
    Operation* def = v.getDefiningOp();
    assert(def && (isLayoutOp(def) || isClonedScalar(v)) && "unmapped fusion operand");
    if (isLayoutOp(def)) materialize(def->getOperand(0));
    Operation* clone = b.clone(*def, map);
    return clone->getResult(0);
  };
  for (Operation* m : members) {
    for (Value v : m->getOperands()) materialize(v);
    b.clone(*m, map);
  }
  SmallVector<Value> yielded;
  for (Value v : outputs) yielded.push_back(map.lookup(v));
  ir::YieldOp::create(b, last->getLoc(), yielded);

  for (auto [out, res] : llvm::zip(outputs, fusion.getResults()))
    out.replaceUsesWithIf(res, [&](OpOperand& use) {
      return !inGroup.contains(use.getOwner()) && !fusion->isAncestor(use.getOwner());
    });
  for (Operation* m : llvm::reverse(members)) {
    m->dropAllUses();
    m->erase();
  }
}

/// Replaces the use `use` of a layout value computed by a non-linear chain, or of a splat, with
/// a copy (or fill) kernel that materializes it.
void materializeUse(OpOperand& use) {
  Operation* def = use.get().getDefiningOp();
  OpBuilder b(def->getContext());
  b.setInsertionPointAfter(def);
  use.set(buildLayoutCopy(b, use.get()).getResult(0));
}

void eraseDeadOps(Block& block) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation& op : llvm::make_early_inc_range(llvm::reverse(block)))
      if (op.use_empty() && (isLayoutOp(&op) || isa<ir::ConstantOp, ir::SizeOp>(op))) {
        op.erase();
        changed = true;
      }
  }
}

struct TgFuseElementwisePass final : impl::TgFuseElementwiseBase<TgFuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<Block*> body = ir::tgFunctionBody(getOperation());
    if (failed(body)) return signalPassFailure();
    if (!*body) return;
    Block& block = **body;

    // Cheap elementwise values read through a broadcast, transpose or slice are recomputed by
    // their readers rather than stored by a kernel of their own (RecomputeThroughLayouts.cpp).
    // Over dynamic dims, not the iotas (their axes through layouts are found with static
    // extents).
    const bool symbolic = getOperation()->hasAttr(ir::kSymbolsAttr);
    if (fuse) recomputeThroughLayouts(block);
    if (fuse && !symbolic) recomputeIotasThroughLayouts(block);
    if (fuse) recomputeConcatOperands(block);

    FusionPlan plan(block, fuse, fuseReductions);
    std::vector<FusionPlan::Refusal> refused = plan.refusals();
    if (remarks)
      for (const FusionPlan::Refusal& r : refused)
        r.producer->emitRemark() << "not fused into '" << r.consumer->getName() << "' at "
                                 << locText(r.consumer->getLoc()) << ": " << r.reason;
    numRefused += refused.size();

    // Matmul operands, function results and the inputs of kernels built before (tg-opt can
    // run this pass twice) must be in memory in their own layout. A splat constant there gets
    // a fill kernel: it is never expanded on the host (tensor<1099511627776xf32> is one
    // element in the IR and 4 TiB as a buffer).
    for (Operation& op : llvm::make_early_inc_range(block))
      if (isa<ir::MatmulOp, ir::FusionOp, func::ReturnOp>(op))
        for (OpOperand& use : op.getOpOperands()) {
          LayoutChain chain = traceLayout(use.get());
          if (!chain.linear || isClonedScalar(chain.root)) materializeUse(use);
        }

    std::vector<SmallVector<Operation*>> groups = plan.groups();
    for (const SmallVector<Operation*>& members : groups) {
      const bool reduces = llvm::any_of(members, isReductionOp);
      if (reduces && members.size() == 1) continue;  // a reduction alone: a reduction kernel below
      buildFusion(members, llvm::any_of(members, [](Operation* m) { return isa<ir::MatmulOp>(m); })
                               ? ir::FusionKind::gemm
                           : reduces ? ir::FusionKind::row
                                     : ir::FusionKind::elementwise);
      ++numGroups;
    }

    SmallVector<Operation*> singles;
    for (Operation& op : block)
      if (isReductionOp(&op) || isa<ir::CheckOp>(op)) singles.push_back(&op);
    for (Operation* op : singles)
      buildFusion({op}, isa<ir::CheckOp>(op) ? ir::FusionKind::check : ir::FusionKind::reduction);

    eraseDeadOps(block);
    if (!sortTopologically(&block)) return signalPassFailure();
    for (Operation& op : block)
      if (!isa<ir::FusionOp, ir::ConstantOp, ir::ReshapeOp, func::ReturnOp>(op)) {
        op.emitOpError("was left outside every kernel by the fuser");
        return signalPassFailure();
      }
  }
};

}  // namespace
}  // namespace tg
