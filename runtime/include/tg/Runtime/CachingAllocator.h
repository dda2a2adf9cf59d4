//===- CachingAllocator.h - Device memory reuse without driver calls ------===//
//
// The policy that keeps tg's allocations off the driver on the hot path, separate from the
// driver itself: Gpu gives it a DeviceMemory over cuMemAllocAsync / cuMemFreeAsync on tg's
// stream, and the CPU unit tests give it a recording one (tests/unit/CachingAllocatorTest.cpp),
// so the reuse rules are checked without a GPU. No CUDA here.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tg::rt {

using DevicePtr = uint64_t;

/// What the allocator needs of the device. Allocation and free are stream-ordered.
class DeviceMemory {
 public:
  virtual ~DeviceMemory() = default;
  /// `bytes` of device memory, or 0 when the device is out of memory; throws tg::Error for
  /// any other failure.
  virtual DevicePtr tryAllocate(size_t bytes) = 0;
  /// Returns `ptr` (stream-ordered). Must not throw: it also runs at process exit.
  virtual void free(DevicePtr ptr) = 0;
  /// Waits until the frees queued so far have executed, so their memory can be allocated again.
  virtual void waitForFrees() = 0;
  /// What an out-of-memory error adds after the bytes asked for, e.g. "N of M free".
  virtual std::string describeFree() = 0;
};

/// Stream-ordered allocation with reuse: no host sync, and usually no driver call either:
///  - small buffers (up to kSmallBytes) are carved from 2 MiB slabs, in kSmallAlign steps;
///    released ones go to a free list per size and are never returned to the driver (the
///    memory stays reserved for small buffers, at most what was live at once);
///  - a large buffer of exactly `bytes` released earlier is handed back (up to kKeptBuffers
///    are kept); otherwise a new one from the driver.
/// Either way the last released buffer of a size is reused first: a replayed function whose
/// previous result is gone gets the same address again, and its CUDA graph needs no new
/// parameters. The memory is reused only by work queued later on the one stream, after all
/// work queued before the release. Thread-safe: buffers may be released on any thread.
class CachingAllocator {
 public:
  /// `caching` false sends every allocation and release to `memory` (for memory checkers).
  CachingAllocator(DeviceMemory& memory, bool caching) : memory_(memory), caching_(caching) {}
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  bool caches() const { return caching_; }

  /// `bytes` (> 0) of device memory. Throws tg::OutOfMemoryError naming `bytes` when the
  /// device is out of memory after the kept large buffers were freed and the frees waited for.
  DevicePtr allocate(size_t bytes);
  /// Keeps the `bytes` at `ptr` for reuse by allocate(), or frees them.
  void release(DevicePtr ptr, size_t bytes);
  /// Returns everything held for reuse (kept buffers and slabs) to the device: at process
  /// exit, after the stream is idle. Releases after it go straight to the device, small ones
  /// (whose slab is gone) to nobody.
  void releaseAll();

  /// Device memory taken from the driver and not returned (live buffers, slabs, kept buffers).
  size_t bytesFromDriver() const { return driverBytes_.load(std::memory_order_relaxed); }

  static constexpr size_t kSmallBytes = size_t(1) << 20;
  static constexpr size_t kSmallAlign = 512;
  static constexpr size_t kSlabBytes = size_t(2) << 20;
  static constexpr size_t kKeptBuffers = 64;

 private:
  /// From the driver, retried once after freeing the kept large buffers and waiting; throws
  /// tg::OutOfMemoryError naming `asked` (the caller's request).
  DevicePtr fromDriver(size_t bytes, size_t asked);
  void toDriver(DevicePtr ptr, size_t bytes);
  /// A small buffer: from its size's free list, else from the current slab (a new one when
  /// the rest is too short).
  DevicePtr takeSmall(size_t bytes);
  /// A kept large buffer of exactly `bytes`, or 0.
  DevicePtr takeKept(size_t bytes);
  /// Frees every kept large buffer.
  void freeKept();

  DeviceMemory& memory_;
  const bool caching_;
  std::mutex mutex_;  // guards what follows
  // Released large buffers, the last released at the back. Exact sizes only, so a large
  // buffer is never handed out larger than asked. The bound keeps a program of many sizes
  // from holding memory the pool could share.
  struct Kept {
    DevicePtr ptr;
    size_t bytes;
  };
  std::vector<Kept> kept_;
  // Small buffers: free lists by rounded size, and the unused rest of the current slab.
  std::unordered_map<size_t, std::vector<DevicePtr>> smallFree_;
  DevicePtr slabNext_ = 0, slabEnd_ = 0;
  // Every driver allocation that small buffers are carved from, with its size.
  std::vector<std::pair<DevicePtr, size_t>> slabs_;
  std::atomic<size_t> driverBytes_{0};
  bool released_ = false;  // releaseAll() ran
};

}  // namespace tg::rt
