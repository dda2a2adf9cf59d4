//===- AssignBuffers.cpp - Kernel names and buffer assignment by liveness ===//
//
// After fusion, a function's body is tg.fusion ops (one kernel each), constants, reshapes
// (aliases: same bytes, other shape) and the return. Every value gets a buffer:
//  - function arguments: the caller's input buffers;
//  - constants: uploaded once with the program;
//  - values returned (or aliased by something returned): fresh output buffers on every call;
//  - everything else: a slice of one per-call arena. Slices are packed first-fit in program
//    order and freed after their last reader, so temporaries whose lifetimes do not overlap
//    share memory.
//
//===----------------------------------------------------------------------===//
#include "tg/Dialect/EntryFunction.h"
#include "tg/Dialect/BufferAssignment.h"
#include "tg/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

namespace tg {
#define GEN_PASS_DEF_TGASSIGNBUFFERS
#include "tg/Transforms/Passes.h.inc"
}  // namespace tg

using namespace mlir;

namespace tg {

namespace {

constexpr int64_t kAlignment = 256;

int64_t bytesOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  int64_t elementBits = t.getElementType().getIntOrFloatBitWidth();
  int64_t elementBytes = elementBits == 1 ? 1 : elementBits / 8;  // i1 is stored as a byte
  return t.getNumElements() * elementBytes;
}

/// First-fit allocator over one growing arena.
class Arena {
 public:
  int64_t allocate(int64_t bytes) {
    bytes = std::max<int64_t>(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second < bytes) continue;
      int64_t offset = it->first, size = it->second;
      free_.erase(it);
      if (size > bytes) free_[offset + bytes] = size - bytes;
      return offset;
    }
    // Grow, reusing a free block that ends at the top.
    int64_t offset = top_;
    if (!free_.empty()) {
      auto last = std::prev(free_.end());
      if (last->first + last->second == top_) {
        offset = last->first;
        free_.erase(last);
      }
    }
    top_ = offset + bytes;
    return offset;
  }
  void release(int64_t offset, int64_t bytes) {
    bytes = std::max<int64_t>(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
    auto [it, inserted] = free_.emplace(offset, bytes);
    // Merge with the neighbours.
    if (auto next = std::next(it); next != free_.end() && it->first + it->second == next->first) {
      it->second += next->second;
      free_.erase(next);
    }
    if (it != free_.begin()) {
      auto prev = std::prev(it);
      if (prev->first + prev->second == it->first) {
        prev->second += it->second;
        free_.erase(it);
      }
    }
  }
  int64_t size() const { return top_; }

 private:
  std::map<int64_t, int64_t> free_;  // offset -> size
  int64_t top_ = 0;
};

std::string kernelName(ir::FusionOp fusion, int index) {
  const char* letter = fusion.getKind() == ir::FusionKind::gemm        ? "g"
                       : fusion.getKind() == ir::FusionKind::reduction ? "r"
                       : fusion.getKind() == ir::FusionKind::check     ? "c"
                       : fusion.getKind() == ir::FusionKind::row       ? "w"
                                                                       : "e";
  std::string name = "tg_" + std::string(letter) + std::to_string(index);
  int shown = 0, total = 0;
  fusion.getBody().walk([&](Operation* op) {
    if (isa<ir::YieldOp, ir::ConstantOp, ir::BroadcastOp, ir::TransposeOp, ir::ReshapeOp, ir::SliceOp>(op))
      return;
    ++total;
    if (shown < 4) {
      name += "_" + op->getName().stripDialect().str();
      ++shown;
    }
  });
  if (total == 0) name += fusion.getNumOperands() == 0 ? "_fill" : "_copy";  // a splat, a layout
  if (total > shown) name += "_" + std::to_string(total - shown) + "more";
  return name;
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
    auto aliasRoot = [](Value v) {
      while (auto r = v.getDefiningOp<ir::ReshapeOp>()) v = r.getInput();
      return v;
    };
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

    Arena arena;
    llvm::DenseMap<Value, std::pair<int64_t, int64_t>> slices;  // root -> (offset, bytes)
    std::vector<std::pair<int, Value>> releases;               // (after position, root)
    int kernelIndex = 0;
    for (Operation& op : block) {
      int here = position[&op];
      // Free the slices whose last reader ran before this op.
      for (auto it = releases.begin(); it != releases.end();) {
        if (it->first < here) {
          auto [offset, bytes] = slices[it->second];
          arena.release(offset, bytes);
          it = releases.erase(it);
        } else {
          ++it;
        }
      }
      if (auto fusion = dyn_cast<ir::FusionOp>(op))
        fusion->setAttr(kKernelNameAttr, StringAttr::get(ctx, kernelName(fusion, kernelIndex++)));
      if (op.getNumResults() == 0) continue;
      SmallVector<Attribute> assignments;
      for (Value r : op.getResults()) {
        using Kind = rt::PlanBuffer::Kind;
        const int64_t bytes = bytesOf(r);
        Kind kind = Kind::Arena;
        int64_t index = -1, offset = 0;
        if (isa<ir::ReshapeOp>(op)) {
          kind = Kind::Alias;
        } else if (isa<ir::ConstantOp>(op)) {
          kind = Kind::Constant;
        } else if (auto it = returned.find(r); it != returned.end()) {
          kind = Kind::Output;
          index = it->second;
        } else {
          offset = arena.allocate(bytes);
          slices[r] = {offset, bytes};
          releases.push_back({lastUse.lookup(r), r});  // unused values free right away
        }
        assignments.push_back(ir::BufferAttr::get(ctx, kind, index, offset, bytes));
      }
      op.setAttr(kBuffersAttr, ArrayAttr::get(ctx, assignments));
    }
    getOperation()->setAttr(kArenaBytesAttr, IntegerAttr::get(IntegerType::get(ctx, 64), arena.size()));
  }
};

}  // namespace
}  // namespace tg
