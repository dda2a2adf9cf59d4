//===- SymbolicPlans.h - A hand-made plan compiled for a range of sizes ---===//
//
// For the runtime's tests and benchmarks of symbolic plans (rt::Plan::symbols, PlanSizes.h)
// before the compiler makes them: a chain of kernels over x[batch, seq] f32 that read their
// sizes from their parameters. Launch 0 is t0 = 2 x (grid-stride, its grid capped); launch k
// is t_k = t_(k-1) + i / seq (one element per thread: a grid that does not cover the elements
// leaves some unwritten); the last one writes the result, the others temporaries in the arena.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Runtime/Plan.h"

#include <cstdint>
#include <vector>

namespace tgtest {

/// The chain of `launches` (>= 2) launches; symbols batch in [1, 64], seq in [1, 5000].
tg::rt::Plan symbolicChainPlan(int launches);

/// What that plan computes from `x` (batch * seq values), with the device's float operations
/// in the same order.
std::vector<float> symbolicChainReference(const std::vector<float>& x, int launches, int64_t seq);

}  // namespace tgtest
