//===- CheckRegistry.h - Sites of tg::check, and their failures -----------===//
//
// tg::check registers its site (message, source line) once and gets an id. A failing check
// never stops the device: a kernel writes its id into one device-side flag (the first failure
// wins), or the CPU reference records it here. The host looks at the flag only at points where
// it synchronizes anyway, and raises the failure there.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Runtime/Gpu.h"
#include "tg/Support/Error.h"

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace tg::rt {

struct CheckFailure {
  std::string message;
  SourceLoc loc;
};

class CheckRegistry {
 public:
  static CheckRegistry& instance();

  /// The id of the check site (message, loc); the same site always gets the same id (>= 1).
  int64_t add(const std::string& message, const SourceLoc& loc);
  /// Records, on the host, that check `id` failed (the first failure is kept).
  void fail(int64_t id);
  /// The device flag GPU checks write: 0, or the id of the first check that failed.
  DevicePtr deviceFlag(Gpu& gpu);
  /// Notes that kernels that may write the flag were queued since the last look.
  void launched() { deviceMayHaveFailed_ = true; }
  /// The first failure since the last call, if any, and clears it. Reads the device flag
  /// (a 4-byte copy) only when checks were launched; call at sync points.
  std::optional<CheckFailure> takeFailure();
  /// Frees the device flag (at exit: Gpu::releaseProcessResources); a later use makes a new one.
  void releaseDeviceFlag();

 private:
  struct Site {
    std::string message;
    SourceLoc loc;
  };
  std::mutex mutex_;
  std::vector<Site> sites_;  // id - 1
  int64_t hostFailure_ = 0;
  std::shared_ptr<DeviceBuffer> flag_;
  bool deviceMayHaveFailed_ = false;
};

}  // namespace tg::rt
