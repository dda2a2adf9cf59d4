//===- SegmentFit.h - A segment's sizes fitted from the calls that traced it (internal) ===//
//
// A function with graph breaks cannot be probed past its first break (the probe would have to
// run the segments to read the values the lambda branches on), but it runs its lambda on
// every call, so every call traces each segment at that call's sizes anyway. The calls are
// the samples: a segment seen with one structure at enough sizes of the function's symbols
// has its sizes fitted as polynomials of degree at most one in each symbol that varied among
// them, exactly on every sample (at least one more sample than the fit has terms). The jit
// then compiles it once for the ranges, and at every later call checks the call's own trace
// against the fit (the same structure, every size the polynomial's value) before running it:
// a fit that does not hold at a call is never used there.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Support/SizeExpr.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tg::detail {

/// Polynomials of the symbols in `varied` (degree at most one in each), one per slot, that
/// take `slots[o][k]` at the symbols' sizes `values[o]` for every sample o; the other symbols
/// do not appear (the samples hold them at one size). Empty, with the reason in `whyNot`, when
/// the samples do not determine them (too few, or sizes that do not separate the terms) or no
/// such polynomial takes every sample's value.
std::optional<std::vector<SizeExpr>> fitObservedSizes(std::span<const std::vector<int64_t>> values,
                                                      std::span<const std::vector<int64_t>> slots,
                                                      const std::vector<int>& varied, std::string& whyNot);

}  // namespace tg::detail
