//===- WorkerPool.h - Seeds checked in forked worker processes ------------===//
//
// The parent hands seeds one at a time to `jobs` forked workers over pipes (so the load
// balances) and never touches tg itself (a CUDA context must not cross fork()). A worker
// reports each seed when it starts it and again with its outcome, so a worker that dies (a
// signal, an abort, exit) is a crash of the seed it was running, and one that runs past the
// time limit is killed and counted as a crash (a hang) of that seed; in both cases a new
// worker takes the remaining seeds. Workers are also replaced after `recycleAfter` programs,
// which bounds what caches (kernels, MLIR attributes) accumulate in one process, and after any
// failure (a CUDA error may leave the context unusable for the programs after it).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ProgramCheck.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace tgrandom {

struct SeedResult {
  uint64_t seed = 0;
  Outcome outcome;
  double seconds = 0;
};

struct PoolOptions {
  int jobs = 1;
  double timeoutSeconds = 120;
  int recycleAfter = 250;
  /// After this many seconds (0: never) no more seeds are handed out; the programs running
  /// then finish. The seeds run are a prefix of `seeds` (they are handed out in order).
  double deadlineSeconds = 0;
};

/// Runs `work` on every seed (up to the deadline) in worker processes; `onResult` is called in
/// the parent as each result arrives. Returns the results in seed order.
std::vector<SeedResult> runPool(const std::vector<uint64_t>& seeds, const PoolOptions& options,
                                const std::function<Outcome(uint64_t)>& work,
                                const std::function<void(const SeedResult&)>& onResult);

}  // namespace tgrandom
