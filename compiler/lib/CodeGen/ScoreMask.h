//===- ScoreMask.h - Which blocks of an attention's scores a mask removes (internal) ===//
//
// A score modifier that ends in masks, `select(p, x, -inf)` (or `select(p, -inf, x)`, nested,
// through casts), removes every score where a mask says so. The flash-attention kernel asks,
// per block of rows [mLo, mHi] x keys [sLo, sHi], whether any score of the block may be
// visible (else the block is skipped: causal and sliding-window attention skip about half
// and most of the key blocks) and whether any may be masked (else the block's scores are the
// masks' unmasked values: no mask is evaluated per score). It answers by interval arithmetic
// on the masks' predicates, generated here as C: iotas give their index's range, splats
// their value, layout ops (broadcast, transpose, slice, reshape) map the ranges of the
// indices, inputs read at one element (a device position, a batch's length) their value,
// adds, subtracts, multiplies, min, max, casts and selects the range of their result, and
// comparisons whether they may be true or false. What it cannot bound (an input read at
// many elements: a boolean mask tensor) may be anything, so the answer is always sound: a
// block it skips has no visible score.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "IndexExpr.h"

#include "mlir/IR/Value.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tg::codegen {

/// The masks at the top of `scores` (the softmax's input): each select and whether its true
/// branch is the masked (-inf) one.
struct ScoreMasks {
  struct Mask {
    mlir::Value select;
    bool maskedWhenTrue = false;
    mlir::Value kept;  ///< the branch that is not -inf
  };
  std::vector<Mask> masks;  ///< outermost first
};
ScoreMasks findScoreMasks(mlir::Value scores);

/// The dims of a value as C expressions of type long long: numbers ("64ll"), or over dynamic
/// dims the size arguments that hold them; nothing when they are not known.
using DimTexts = std::function<std::optional<std::vector<std::string>>(mlir::Value)>;
/// Each dim its static extent (nothing for a dynamic one).
DimTexts staticDimTexts();

/// The body of `void blockMask(long long b, long long mLo, long long mHi, long long sLo, long
/// long sHi, bool& mayVisible, bool& mayMasked) const` for `scores` [batch..., M, S] (b: the
/// flat batch), the extents of values from `dims`: C statements setting both flags. Values
/// whose extents `dims` does not know may be anything (the answer stays sound).
std::string blockMaskBody(const ScoreMasks& masks, mlir::Value scores, const DimTexts& dims);

}  // namespace tg::codegen
