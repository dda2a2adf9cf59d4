//===- LayoutChain.h - Values reached through broadcast/transpose/reshape ===//
//
// Layout ops (broadcast, transpose, reshape, slice) move no data by themselves in tg's kernels: a consumer reads the root value
// through an index map. This helper finds the root of a value and the chain of layout ops in
// between, for the fuser (which folds chains into reads) and the code generator (which turns
// them into offset arithmetic).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Dialect/TgOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace tg {

inline bool isLayoutOp(mlir::Operation* op) {
  return op && mlir::isa<ir::BroadcastOp, ir::TransposeOp, ir::ReshapeOp, ir::SliceOp>(op);
}

/// Concat, gather, dynamic_slice, dynamic_update_slice: group members of elementwise kernels
/// whose elements read their operands from memory at an index they compute, not through a
/// layout chain (graph::isIndexedRead).
inline bool isIndexedRead(mlir::Operation* op) {
  return op && mlir::isa<ir::ConcatOp, ir::GatherOp, ir::DynamicSliceOp, ir::DynamicUpdateSliceOp>(op);
}

/// Marks an elementwise op that tg-fuse copied for one concat operand (RecomputeThroughLayouts.cpp):
/// the concat's kernel computes it per element at the index the concat reads the operand, not
/// at the kernel's own index.
inline constexpr const char* kRecomputedAttr = "tg.recomputed";
inline bool isRecomputed(mlir::Operation* op) { return op && op->hasAttr(kRecomputedAttr); }

/// The value of `v` when a splat tg.constant defines it (null otherwise). The fuser clones
/// such constants into kernels, so every emitter reads them as literals.
inline mlir::DenseElementsAttr splatValue(mlir::Value v) {
  auto c = v.getDefiningOp<ir::ConstantOp>();
  auto dense = c ? mlir::dyn_cast<mlir::DenseElementsAttr>(c.getValue()) : mlir::DenseElementsAttr();
  return dense && dense.isSplat() ? dense : mlir::DenseElementsAttr();
}

struct LayoutChain {
  mlir::Value root;                          ///< The first value not made by a layout op.
  llvm::SmallVector<mlir::Operation*> ops;   ///< From the value back to the root.
  /// True when every op is a reshape (or there is none): element i of the value is element i
  /// of the root, so the two share a linear index and a buffer.
  bool linear = true;
};

inline LayoutChain traceLayout(mlir::Value v) {
  LayoutChain chain;
  while (mlir::Operation* def = v.getDefiningOp()) {
    if (!isLayoutOp(def)) break;
    chain.ops.push_back(def);
    if (!mlir::isa<ir::ReshapeOp>(def)) chain.linear = false;
    v = def->getOperand(0);
  }
  chain.root = v;
  return chain;
}

/// The element offset at which `chain`'s value is a contiguous window of its root: element i of
/// the value is element offset + i of the root, as for reshapes and for slices that keep
/// whole trailing dims (a layer's [kv, S, d] of a cache [L, kv, S, d]). Nothing for any other
/// chain (a broadcast, a transpose, a strided or partial-row slice).
inline std::optional<int64_t> contiguousWindowOffset(const LayoutChain& chain) {
  int64_t offset = 0;
  for (mlir::Operation* op : llvm::reverse(chain.ops)) {
    if (mlir::isa<ir::ReshapeOp>(op)) continue;
    auto slice = mlir::dyn_cast<ir::SliceOp>(op);
    if (!slice) return std::nullopt;
    llvm::ArrayRef<int64_t> shape = mlir::cast<mlir::RankedTensorType>(slice.getInput().getType()).getShape();
    llvm::ArrayRef<int64_t> starts = slice.getStarts(), limits = slice.getLimits(), steps = slice.getSteps();
    // Over dynamic dims an extent or bound may be `?` (a size of the symbols): no number.
    for (llvm::ArrayRef<int64_t> list : {shape, starts, limits, steps})
      if (llvm::any_of(list, [](int64_t x) { return mlir::ShapedType::isDynamic(x); })) return std::nullopt;
    // Dims before the first partial one select one index each; dims after it are whole.
    bool partialSeen = false;
    int64_t stride = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      const int64_t extent = limits[d] - starts[d];
      if (extent > 1 && steps[d] != 1) return std::nullopt;
      if (partialSeen && extent != 1) return std::nullopt;
      if (extent != shape[d]) partialSeen = true;
      offset += starts[d] * stride;
      stride *= shape[d];
    }
  }
  return offset;
}

/// A kernel may address a buffer through a view: the buffer's address plus a multiple of
/// kViewAlignmentBytes, which keeps every alignment the buffer itself has (vector loads,
/// cp.async and TMA need at most 128 bytes). An offset a kernel takes in its pointer rather than
/// in its code leaves kernels that differ only in where they read or write one buffer the same
/// kernel: a model's layers, each at its own window of one KV cache, then share one kernel,
/// compiled and loaded once (KernelEmission::argumentByteOffsets, rt::PlanBuffer's alias offset).
constexpr int64_t kViewAlignmentBytes = 256;

/// The largest part of `elementOffset` (elements of `elementBytes` bytes) a view holds.
inline int64_t viewPart(int64_t elementOffset, int64_t elementBytes) {
  if (elementOffset <= 0 || elementBytes <= 0 || kViewAlignmentBytes % elementBytes != 0) return 0;
  const int64_t perView = kViewAlignmentBytes / elementBytes;
  return elementOffset / perView * perView;
}

/// A copy kernel for the layout value `v`: an elementwise tg.fusion at `b`'s insertion point
/// whose one input is the root of `v`'s layout chain and whose one result is `v`, the chain
/// cloned inside. When the root is a splat constant (or a tg.size) the kernel has no input and
/// it is cloned inside too: a fill kernel, so that a splat is never expanded on the host. The
/// fuser materializes a layout value or splat that a matmul, a kernel or the function result
/// needs in memory with it; tg-select-matmul, a K-major copy of a matmul operand.
/// Whether `v` is the same everywhere and computed where it is read, with no memory: a splat
/// constant, or over dynamic dims a size used as a number (tg.size). Kernels clone it.
inline bool isClonedScalar(mlir::Value v) {
  return static_cast<bool>(splatValue(v)) || static_cast<bool>(v.getDefiningOp<ir::SizeOp>());
}

inline ir::FusionOp buildLayoutCopy(mlir::OpBuilder& b, mlir::Value v) {
  mlir::OpBuilder::InsertionGuard guard(b);
  const mlir::Location loc = v.getDefiningOp()->getLoc();
  LayoutChain chain = traceLayout(v);
  const bool fill = isClonedScalar(chain.root);
  auto fusion = ir::FusionOp::create(b, loc, mlir::TypeRange{v.getType()}, ir::FusionKind::elementwise,
                                     fill ? mlir::ValueRange{} : mlir::ValueRange{chain.root});
  mlir::Block* body = b.createBlock(&fusion.getBody());
  mlir::IRMapping map;
  if (fill)
    b.clone(*chain.root.getDefiningOp(), map);
  else
    map.map(chain.root, body->addArgument(chain.root.getType(), chain.root.getLoc()));
  for (mlir::Operation* op : llvm::reverse(chain.ops)) b.clone(*op, map);
  ir::YieldOp::create(b, loc, mlir::ValueRange{map.lookup(v)});
  return fusion;
}

}  // namespace tg
