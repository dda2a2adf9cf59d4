//===- SizeFit.h - Sizes as polynomials, from their values at probe sizes --===//
//
// Which polynomial of the symbols a size is, found from its values on a grid of sizes: the
// frontend fits the numbers of traces taken at probe sizes (SymbolicTrace), the compiler the
// result shapes of ops over symbolic types from the shape rules at sample sizes. Standard
// library only.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Support/SizeExpr.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace tg {

/// Polynomials, of degree at most one in each symbol of `varied`, that take `at(subset)` (one
/// value per slot, `slots` of them) on the grid where the symbols of `subset` (a bit mask over
/// `varied`) sit at `probe[s]` and the others at `values[s]` (probe[s] - values[s] must be +1
/// or -1, so that the coefficients are integers):
///   f = sum over subsets T of d_T * prod_{s in T} (x_s - v_s) / (p_s - v_s).
/// `subsets` lists the masks sampled, the empty one first; a mask missing from it is taken as
/// 0 (an affine fit samples the singletons only). The fit is exact on the sampled grid; check
/// it elsewhere before trusting it.
std::vector<SizeExpr> fitMultilinear(const std::vector<int>& varied, const std::vector<int64_t>& values,
                                     const std::vector<int64_t>& probe, const std::vector<unsigned>& subsets,
                                     const std::function<const std::vector<int64_t>&(unsigned)>& at,
                                     size_t slots);

}  // namespace tg
