//===- Executor.h - Runs a Plan on tg's stream, without host syncs --------===//
#pragma once

#include "tg/Runtime/Plan.h"

#include <memory>
#include <vector>

namespace tg::rt {

class Executor {
 public:
  /// Gets every kernel of `plan` from the kernel cache (compiling what is new) and uploads its
  /// constants. Throws tg::Error when a kernel does not compile.
  Executor(Plan plan, Gpu& gpu);

  /// Runs the plan on `inputs` (one buffer per program input, in order) and returns one buffer
  /// per result. Everything is queued on tg's stream: no host sync. Results that are inputs or
  /// constants (or reshapes of them) share those buffers. The temporaries' arena is allocated
  /// once and reused by every run (runs are ordered on the one stream); results are fresh
  /// buffers. Not for concurrent use from several threads.
  std::vector<std::shared_ptr<DeviceBuffer>> run(
      const std::vector<std::shared_ptr<DeviceBuffer>>& inputs);

  const Plan& plan() const { return plan_; }

 private:
  Plan plan_;
  Gpu& gpu_;
  std::vector<void*> functions_;                       // per kernel
  std::vector<std::shared_ptr<DeviceBuffer>> constants_;  // per buffer (Constant kind only)
  std::shared_ptr<DeviceBuffer> arena_;                   // temporaries, reused by every run
  // Scratch reused by every run (no allocation on the per-call path).
  std::vector<std::shared_ptr<DeviceBuffer>> owners_;
  std::vector<DevicePtr> ptrs_;
  std::vector<DevicePtr> args_;
};

}  // namespace tg::rt
