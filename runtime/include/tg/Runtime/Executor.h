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
  /// constants (or reshapes of them) share those buffers.
  std::vector<std::shared_ptr<DeviceBuffer>> run(
      const std::vector<std::shared_ptr<DeviceBuffer>>& inputs);

  const Plan& plan() const { return plan_; }

 private:
  Plan plan_;
  Gpu& gpu_;
  std::vector<void*> functions_;                       // per kernel
  std::vector<std::shared_ptr<DeviceBuffer>> constants_;  // per buffer (Constant kind only)
};

}  // namespace tg::rt
