//===- CheckFlag.h - The device flag failed GPU checks write --------------===//
//
// A failing check never stops the device: a kernel writes its id (CheckSites.h) into one
// device-side flag (the first failure wins). The host reads the flag only at points where it
// synchronizes anyway, and only when check kernels were launched since the last look.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Runtime/Gpu.h"
#include "tg/Support/CheckSites.h"

#include <memory>
#include <mutex>
#include <optional>

namespace tg::rt {

class CheckFlag {
 public:
  static CheckFlag& instance();

  /// The device flag GPU checks write: 0, or the id of the first check that failed.
  DevicePtr deviceFlag(Gpu& gpu);
  /// Notes that kernels that may write the flag were queued since the last look.
  void launched() { deviceMayHaveFailed_ = true; }
  /// The id the device wrote since the last call (0: none), and clears the flag. Reads it (a
  /// 4-byte copy, which waits for the stream) only when checks were launched.
  int64_t takeDeviceFailure();
  /// Frees the flag (at exit: Gpu::releaseProcessResources); a later use makes a new one.
  void release();

 private:
  std::mutex mutex_;
  std::shared_ptr<DeviceBuffer> flag_;
  bool deviceMayHaveFailed_ = false;
};

/// The first check failure since the last call, the host's or else the device's, and clears
/// both; call at sync points.
std::optional<CheckFailure> takeCheckFailure();

}  // namespace tg::rt
