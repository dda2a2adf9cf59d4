//===- Timing.h - How every tg benchmark binary times device work ---------===//
//
// One definition shared by tg_bench and tg_bench_gemm, so that their figures (and
// compare_torch.py's, which times PyTorch the same way) compare.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Runtime/Gpu.h"

#include <tg/tg.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace tgbench {

/// Median host time in microseconds of `call(i)`, i in [0, iterations): each call timed on its
/// own with the host clock, nothing waited for in between (for per-call host costs).
inline double medianHostUs(int iterations, const std::function<void(int)>& call) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> us(static_cast<size_t>(iterations));
  for (int i = 0; i < iterations; ++i) {
    const Clock::time_point t0 = Clock::now();
    call(i);
    us[static_cast<size_t>(i)] = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
  }
  std::sort(us.begin(), us.end());
  return us.empty() ? 0 : us[us.size() / 2];
}

/// Median device time in microseconds of `call`: each call between its own pair of events,
/// recorded back to back with no host wait in between, all read after one synchronisation at
/// the end. This is how compare_torch.py times PyTorch, so the two sets of figures compare.
/// Everything `call` launches must go to tg's stream (cuBLAS included) for the events to
/// bracket it.
inline double medianUs(const std::function<void(int)>& call, int warmup = 3, int iters = 30) {
  tg::rt::Gpu& gpu = *tg::rt::Gpu::get();
  for (int i = 0; i < warmup; ++i) call(i);
  std::vector<void*> starts(iters), ends(iters);
  for (int i = 0; i < iters; ++i) {
    starts[i] = gpu.createEvent();
    ends[i] = gpu.createEvent();
  }
  tg::synchronize();
  for (int i = 0; i < iters; ++i) {
    gpu.recordEvent(starts[i]);
    call(i);
    gpu.recordEvent(ends[i]);
  }
  std::vector<double> us;
  for (int i = 0; i < iters; ++i) {  // elapsedMs waits for the end event
    us.push_back(1000.0 * gpu.elapsedMs(starts[i], ends[i]));
    gpu.destroyEvent(starts[i]);
    gpu.destroyEvent(ends[i]);
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

}  // namespace tgbench
