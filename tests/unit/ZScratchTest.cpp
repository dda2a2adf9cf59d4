#include "SymbolicPlans.h"
#include "tg/Runtime/PlanSizes.h"
#include <gtest/gtest.h>
#include <chrono>
#include <cstdio>
TEST(ZScratch, EvalCost) {
  const tg::rt::Plan plan = tgtest::symbolicChainPlan(8);
  std::vector<std::vector<int64_t>> sizes;
  for (int64_t k = 0; k < 64; ++k) sizes.push_back({1 + k % 8, 1000 + 37 * k});
  tg::rt::PlanSizes a, b;
  tg::rt::evaluatePlanSizes(plan, sizes[0], a);
  const int n = 200000;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    tg::rt::evaluatePlanSizes(plan, sizes[i % 64], b);
    tg::rt::keepCoveringGrids(plan, a, b);
    std::swap(a, b);
  }
  double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
  std::printf("evaluatePlanSizes + keep: %.3f us\n", us);
}
