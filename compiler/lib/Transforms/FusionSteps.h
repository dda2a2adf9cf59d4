//===- FusionSteps.h - Steps of tg-fuse kept in files of their own (internal) ===//
#pragma once

#include "mlir/IR/Block.h"

namespace tg {

/// Rewrites layout(e(a, b, ...)) as e(layout(a), layout(b), ...) for a chain of broadcasts, slices
/// and reshapes over a cheap elementwise value `e` (RecomputeThroughLayouts.cpp), so that the layout's
/// consumer computes e itself, reading e's operands through the layout, instead of a kernel of
/// its own materializing e first. Returns the number of ops recomputed.
int recomputeThroughLayouts(mlir::Block& block);

/// Replaces each layout chain over an iota by an iota of the chain's shape where the iota's
/// axis survives the chain whole (RecomputeThroughLayouts.cpp), so that its reader computes it
/// at its own index. Returns the number of chains replaced.
int recomputeIotasThroughLayouts(mlir::Block& block);

/// Gives each cheap elementwise operand of a concat a copy of its own, marked
/// kRecomputedAttr (LayoutChain.h), that the concat's kernel computes at the index it reads
/// the operand. Returns the number of ops copied.
int recomputeConcatOperands(mlir::Block& block);

}  // namespace tg
