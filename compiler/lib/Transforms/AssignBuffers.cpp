//===- AssignBuffers.cpp - Kernel names and buffer assignment by liveness ===//
//
// After fusion, a function's body is tg.fusion ops (one kernel each), constants, reshapes
// (aliases: same bytes, other shape) and the return. Every value gets a buffer:
//  - function arguments: the caller's input buffers;
//  - constants: uploaded once with the program;
//  - values returned (or aliased by something returned): fresh output buffers on every call;
//  - everything else: a slice of one per-call arena. Slices are packed first-fit in program
//    order and freed after their last reader, so temporaries whose lifetimes do not overlap
//    share memory. Values with dynamic dims get 0 bytes here: the symbolic plan packs them
//    at each new size (EmitPlan.cpp, rt::packArena).
// A dynamic_update_slice kernel whose input is dead after it (no later reader, not a result,
// a kernel's result or a donated argument) updates that input in place: its result is an
// alias of the input (like a reshape) and the kernel writes only the update. Each such kernel
// gets a note saying which it does and why (a remark, and the report's `updates`).
//
//===----------------------------------------------------------------------===//
#include "tg/Dialect/EntryFunction.h"
#include "tg/Dialect/BufferAssignment.h"
#include "tg/Dialect/LayoutChain.h"
#include "tg/Dialect/Locations.h"
#include "tg/Dialect/SymbolicTypes.h"
#include "tg/Runtime/ArenaPacking.h"
#include "tg/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"

#include <functional>

namespace tg {
#define GEN_PASS_DEF_TGASSIGNBUFFERS
#include "tg/Transforms/Passes.h.inc"
}  // namespace tg

using namespace mlir;

namespace tg {

namespace {

/// 0 for a value with dynamic dims: a symbolic plan sizes and packs those at each call
/// (EmitPlan.cpp), from the lifetimes of its launches.
int64_t bytesOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  if (ir::isSymbolic(t)) return 0;
  int64_t elementBits = t.getElementType().getIntOrFloatBitWidth();
  int64_t elementBytes = elementBits == 1 ? 1 : elementBits / 8;  // i1 is stored as a byte
  return t.getNumElements() * elementBytes;
}

std::string kernelName(ir::FusionOp fusion, int index) {
  const char* letter = fusion.getKind() == ir::FusionKind::gemm        ? "g"
                       : fusion.getKind() == ir::FusionKind::reduction ? "r"
                       : fusion.getKind() == ir::FusionKind::check     ? "c"
                       : fusion.getKind() == ir::FusionKind::row       ? "w"
                       : fusion.getKind() == ir::FusionKind::attention ? "a"
                                                                       : "e";
  std::string name = "tg_" + std::string(letter) + std::to_string(index);
  int shown = 0, total = 0;
  fusion.getBody().walk([&](Operation* op) {
    if (isa<ir::YieldOp, ir::ConstantOp, ir::BroadcastOp, ir::TransposeOp, ir::ReshapeOp, ir::SliceOp>(op))
      return;
    ++total;
    if (shown < 4) {
      name += '_';  // (appended: GCC 12 warns wrongly of overlapping copies in "_" + ...)
      name += op->getName().stripDialect().str();
      ++shown;
    }
  });
  if (total == 0) name += fusion.getNumOperands() == 0 ? "_fill" : "_copy";  // a splat, a layout
  if (total > shown) {
    name += '_';
    name += std::to_string(total - shown);
    name += "more";
  }
  return name;
}

std::string locText(Location loc) {
  SourceLoc s = ir::sourceLocOf(loc);
  return s.known() ? s.str() : std::string("<unknown>");
}

/// The dynamic_update_slice a fusion consists of (besides the constants and layout chains
/// cloned into it), if any: the fuser gives each one a kernel of its own.
ir::DynamicUpdateSliceOp updateOf(ir::FusionOp fusion) {
  ir::DynamicUpdateSliceOp update;
  for (Operation& op : fusion.getBody().front()) {
    if (isa<ir::ConstantOp, ir::YieldOp>(op) || isLayoutOp(&op)) continue;
    auto u = dyn_cast<ir::DynamicUpdateSliceOp>(op);
    if (!u || update) return {};
    update = u;
  }
  return update;
}

/// Decides which dynamic_update_slice kernels update their input in place (marked with
/// kInPlaceAttr) and notes every decision (kUpdateNoteAttr, and a remark). `root` maps a value
/// to the value whose buffer it shares (through reshapes and in-place updates decided so far).
void decideInPlace(func::FuncOp func, Block& block, const llvm::DenseMap<Operation*, int>& position,
                   const std::function<Value(Value)>& root) {
  MLIRContext* ctx = func.getContext();
  for (Operation& op : block) {
    auto fusion = dyn_cast<ir::FusionOp>(op);
    ir::DynamicUpdateSliceOp update = fusion ? updateOf(fusion) : ir::DynamicUpdateSliceOp();
    if (!update) continue;
    Value input = fusion.getNumOperands() ? fusion.getOperand(0) : Value();
    Value storage = input ? root(input) : Value();
    std::string why;  // empty: in place
    const LayoutChain chain = traceLayout(update.getInput());  // reshapes keep the bytes in place
    auto arg = dyn_cast<BlockArgument>(chain.root);
    if (!chain.linear || !arg || arg.getArgNumber() != 0) {
      why = "its input is a constant or read through a layout (a broadcast, transpose or slice)";
    } else if (auto a = dyn_cast<BlockArgument>(storage)) {
      if (!func.getArgAttr(a.getArgNumber(), kDonatedAttr))
        why = "its input is argument " + std::to_string(a.getArgNumber()) +
              " of the function, which is not donated (JitOptions::donate)";
    } else if (!storage.getDefiningOp<ir::FusionOp>()) {
      why = "its input is a constant";
    }
    for (Value v : {update.getUpdate(), update.getStart()}) {  // inside: through layouts
      auto read = dyn_cast<BlockArgument>(traceLayout(v).root);
      if (why.empty() && read && root(fusion.getOperand(read.getArgNumber())) == storage)
        why = "its update or start reads the input's memory";
    }
    // Every reader of the input's current contents runs earlier: the readers of the value that
    // holds them (up the reshapes the input is read through) and of all its reshapes.
    Value contents = input;
    while (auto r = contents ? contents.getDefiningOp<ir::ReshapeOp>() : ir::ReshapeOp()) contents = r.getInput();
    SmallVector<Value> work{contents};
    while (why.empty() && !work.empty()) {
      Value v = work.pop_back_val();
      for (Operation* user : v.getUsers()) {
        if (user == fusion.getOperation()) continue;
        if (isa<ir::ReshapeOp>(user)) {
          work.push_back(user->getResult(0));
        } else if (isa<func::ReturnOp>(user)) {
          why = "its input is also a result of the function";
        } else if (position.lookup(user) > position.lookup(fusion)) {
          why = "its input is read after it, by '" + user->getName().getStringRef().str() + "' at " +
                locText(user->getLoc());
        }
      }
    }
    std::string where;
    if (why.empty()) {
      fusion->setAttr(kInPlaceAttr, UnitAttr::get(ctx));
      if (auto a = dyn_cast<BlockArgument>(storage))
        where = "argument " + std::to_string(a.getArgNumber()) + " (donated)";
      else
        where = "the result of the kernel at " + locText(storage.getDefiningOp()->getLoc());
    }
    const std::string note = "dynamic_update_slice at " + locText(update->getLoc()) +
                             (why.empty() ? ": in place, in the memory of " + where
                                          : ": copies its input, since " + why);
    fusion->setAttr(kUpdateNoteAttr, StringAttr::get(ctx, note));
    fusion->emitRemark() << note;
  }
}

struct TgAssignBuffersPass final : impl::TgAssignBuffersBase<TgAssignBuffersPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext* ctx = &getContext();
    FailureOr<Block*> body = ir::tgFunctionBody(getOperation());
    if (failed(body)) return signalPassFailure();
    if (!*body) return;
    Block& block = **body;

    // Program positions, and the root value each alias (reshape) stands for.
    llvm::DenseMap<Operation*, int> position;
    int pos = 0;
    for (Operation& op : block) position[&op] = pos++;
    std::function<Value(Value)> aliasRoot = [](Value v) {
      while (Operation* def = v.getDefiningOp()) {
        if (isa<ir::ReshapeOp>(def) || def->hasAttr(kInPlaceAttr))
          v = def->getOperand(0);
        else
          break;
      }
      return v;
    };
    decideInPlace(getOperation(), block, position, aliasRoot);
    // Last reader of each root (through aliases), and the roots the function returns.
    llvm::DenseMap<Value, int> lastUse;
    llvm::DenseMap<Value, int64_t> returned;  // root -> first result index
    auto ret = cast<func::ReturnOp>(block.getTerminator());
    for (Operation& op : block)
      for (Value v : op.getOperands()) {
        Value root = aliasRoot(v);
        lastUse[root] = std::max(lastUse.lookup(root), position[&op]);
      }
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) returned.try_emplace(aliasRoot(v), i);

    // Every result's buffer; the arena's slices are packed once all are known.
    struct Assignment {
      Operation* op;
      rt::PlanBuffer::Kind kind;
      int64_t index, bytes;
      int request;  // into `requests` (arena slices), else -1
    };
    std::vector<Assignment> assignments;
    std::vector<rt::ArenaRequest> requests;
    int kernelIndex = 0;
    for (Operation& op : block) {
      const int here = position[&op];
      if (auto fusion = dyn_cast<ir::FusionOp>(op))
        fusion->setAttr(kKernelNameAttr, StringAttr::get(ctx, kernelName(fusion, kernelIndex++)));
      for (Value r : op.getResults()) {
        using Kind = rt::PlanBuffer::Kind;
        Assignment a{&op, Kind::Arena, -1, bytesOf(r), -1};
        if (isa<ir::ReshapeOp>(op) || op.hasAttr(kInPlaceAttr)) {
          a.kind = Kind::Alias;
        } else if (isa<ir::ConstantOp>(op)) {
          a.kind = Kind::Constant;
        } else if (auto it = returned.find(r); it != returned.end()) {
          a.kind = Kind::Output;
          a.index = it->second;
        } else {  // unused values free right away
          a.request = static_cast<int>(requests.size());
          requests.push_back({a.bytes, here, std::max(here, lastUse.lookup(r))});
        }
        assignments.push_back(a);
      }
    }
    const rt::ArenaLayout arena = rt::packArena(requests);
    for (size_t i = 0; i < assignments.size();) {
      Operation* op = assignments[i].op;
      SmallVector<Attribute> attrs;
      for (; i < assignments.size() && assignments[i].op == op; ++i) {
        const Assignment& a = assignments[i];
        const int64_t offset = a.request >= 0 ? arena.offsets[a.request] : 0;
        attrs.push_back(ir::BufferAttr::get(ctx, a.kind, a.index, offset, a.bytes));
      }
      op->setAttr(kBuffersAttr, ArrayAttr::get(ctx, attrs));
    }
    getOperation()->setAttr(kArenaBytesAttr, IntegerAttr::get(IntegerType::get(ctx, 64), arena.bytes));
  }
};

}  // namespace
}  // namespace tg
