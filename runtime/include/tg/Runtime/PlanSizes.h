//===- PlanSizes.h - A plan's numbers at one set of symbol values ---------===//
//
// A plan compiled for a range of sizes (Plan::symbols) states its buffer bytes, grids, kernel
// size arguments and result shapes as polynomials of the symbols. At a run the Executor
// evaluates them for the run's values, once per new set of values: a few microseconds of host
// work (the arena is packed again, rt::packArena), no compilation. A static plan's numbers are
// its fixed fields. Plain data; no CUDA.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Runtime/Plan.h"

#include <cstdint>
#include <span>
#include <vector>

namespace tg::rt {

struct PlanSizes {
  std::vector<int64_t> values;               ///< the symbols' values these are for
  std::vector<size_t> bufferBytes;           ///< per plan buffer
  std::vector<size_t> bufferOffsets;         ///< per plan buffer: Arena from the arena's start, Alias from its base
  size_t arenaBytes = 0;
  std::vector<LaunchDims> dims;              ///< per launch
  std::vector<std::vector<int64_t>> launchSizes;  ///< per launch: its kernel's size arguments
  std::vector<Shape> outputShapes;           ///< per result
  /// per launch: its tensor maps' specs at these sizes (PlanTensorMap::symbolicDims evaluated)
  std::vector<std::vector<TensorMapSpec>> tensorMaps;
  /// Device memory a run at these sizes needs: the arena, the results and the constants.
  size_t deviceBytes = 0;
  /// per launch: the guarded variant these sizes take (PlanLaunch::variants), -1 for the launch
  /// itself
  std::vector<int> variants;
};

/// The launch that launch `l` of `plan` is at `sizes`: the variant they chose, or itself.
inline const PlanLaunch& chosenLaunch(const Plan& plan, const PlanSizes& sizes, size_t l) {
  const PlanLaunch& launch = plan.launches[l];
  const int v = l < sizes.variants.size() ? sizes.variants[l] : -1;
  return v < 0 ? launch : launch.variants[static_cast<size_t>(v)];
}

/// The numbers of `plan` when its symbols have `values` (empty for a static plan). Throws
/// tg::Error, naming the plan and the symbol, when `values` has the wrong count, a value lies
/// outside its symbol's range, or a size evaluates negative, overflows, or makes a grid
/// beyond CUDA's limits. Each launch's numbers are those of the guarded variant its sizes
/// choose (PlanLaunch::variants). `out`'s storage is reused.
void evaluatePlanSizes(const Plan& plan, std::span<const int64_t> values, PlanSizes& out);

/// Grid classes: each launch with a symbolic grid launches along x a power of two of blocks
/// (what its sizes need rounded up; never more than its cap, nor fewer than it needs), so that
/// sizes in one class share a grid. Changing a CUDA graph node's grid costs the driver about
/// 1.4 us of host time where new parameters alone cost 0.2 (8 nodes and the launch: 14.1 vs
/// 3.0 us on the H100, RESULTS.md 2026-12-07 23:35); the extra blocks return or share the work of
/// grid-stride loops (keepCoveringGrids says which kernels may take them).
void roundGridsUp(const Plan& plan, PlanSizes& sizes);

/// After a size change, before `next` (the new sizes' numbers) replaces `previous` (the last
/// run's): each launch with a symbolic grid (and the same variant) keeps its previous extent
/// along x where that still
/// covers the new work and is at most `slack` times what the new sizes need. A CUDA graph node
/// whose grid changes costs several times the host time of one whose parameters alone do
/// (RESULTS.md, 2026-12-07), and every kernel over dynamic dims loops by its grid or returns
/// past its work, so the extra blocks only return. (A template that maps blockIdx to a tile
/// must return for blocks past its work, as attention_flash.cuh does: an extra block there
/// once computed a negative row tile and read before q; GpuFlashAttention's sizes shrink
/// within the slack to catch that.)
void keepCoveringGrids(const Plan& plan, const PlanSizes& previous, PlanSizes& next, uint32_t slack = 4);

}  // namespace tg::rt
