//===- Gpu.h - The GPU tg runs on: context, stream, memory, modules -------===//
//
// A thin runtime over the CUDA driver API (opened with dlopen; see lib/Runtime/CudaDriver.h).
// One process-wide Gpu: the primary context of device 0 and one stream that every tg launch,
// copy and stream-ordered allocation goes to, so work is ordered without host syncs. This
// header is free of CUDA headers: handles are opaque.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Runtime/CachingAllocator.h"
#include "tg/Runtime/KernelAbi.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tg::rt {

struct DeviceInfo {
  std::string name;
  int ccMajor = 0;
  int ccMinor = 0;
  int smCount = 0;
  size_t totalMemory = 0;
  size_t sharedMemPerBlockOptin = 0;
  size_t l2Bytes = 0;
  int driverVersion = 0;  ///< e.g. 13000 for CUDA 13.0

  /// The NVRTC target for this device: "sm_90a" on compute capability 9.0 (wgmma and
  /// setmaxnreg need the a-target), otherwise "sm_<major><minor>".
  std::string arch() const;
};

class Gpu;

/// Device memory from the stream-ordered pool. Released when the last reference goes away: kept
/// for a later allocation (CachingAllocator), or freed stream-ordered. Either
/// way no host sync, and the memory is reused only by work queued later on tg's stream.
class DeviceBuffer {
 public:
  DeviceBuffer(Gpu* gpu, DevicePtr ptr, size_t bytes) : gpu_(gpu), ptr_(ptr), bytes_(bytes) {}
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  DevicePtr ptr() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  Gpu* gpu_;
  DevicePtr ptr_;
  size_t bytes_;
};

/// A loaded CUDA module (cubin) and the functions looked up in it.
class Module {
 public:
  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  /// The kernel `name` (extern "C"); throws tg::Error if it is not in the module.
  void* function(const std::string& name) const;

 private:
  friend class Gpu;
  Module(Gpu* gpu, void* handle) : gpu_(gpu), handle_(handle) {}
  Gpu* gpu_;
  void* handle_;
};

class Gpu {
 public:
  /// The process's GPU, opened on first use; null when no driver or device is usable (then
  /// unavailableReason() says why). Set TG_DISABLE_CUDA=1 to force the CPU.
  static Gpu* get();
  static const std::string& unavailableReason();

  const DeviceInfo& info() const { return info_; }
  /// False under TG_NO_MEMORY_CACHING=1 (every allocation goes to the driver).
  bool cachesMemory() const { return allocator_->caches(); }

  /// Stream-ordered allocation through the CachingAllocator (see there: no host sync, and
  /// usually no driver call). TG_NO_MEMORY_CACHING=1 sends every allocation and release to
  /// the driver (for memory checkers). Throws tg::OutOfMemoryError when the device is out of
  /// memory, naming the bytes asked for.
  std::shared_ptr<DeviceBuffer> allocate(size_t bytes);
  /// Host -> device through pinned staging memory; returns once `src` may be reused.
  void copyToDevice(DevicePtr dst, const void* src, size_t bytes);
  /// Device -> host; waits for the stream (a sync point).
  void copyToHost(void* dst, DevicePtr src, size_t bytes);
  void copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes);
  /// Sets `count` elements of `elementBytes` (1, 2 or 4) at `dst` to the bit pattern
  /// `pattern` (its low bytes), queued on tg's stream.
  void fill(DevicePtr dst, uint32_t pattern, size_t elementBytes, size_t count);
  /// Waits until all queued work is done; throws tg::Error if a kernel failed.
  void synchronize();

  /// Loads a cubin; throws tg::Error on failure.
  std::unique_ptr<Module> load(const std::string& cubin);
  /// Raises a kernel's dynamic shared memory limit (needed above 48 KiB).
  void setMaxDynamicShared(void* function, uint32_t bytes);
  /// Launches `function` on tg's stream with `args` (pointers to each argument's value).
  void launch(void* function, const LaunchDims& dims, void** args);
  /// The same with programmatic stream serialization: the kernel may start before the previous
  /// kernel on the stream has finished, and must wait for it itself (griddepcontrol.wait;
  /// Plan::programmaticLaunches).
  void launchProgrammatic(void* function, const LaunchDims& dims, void** args);

  /// Encodes `spec` over the memory at `base` (cuTensorMapEncodeTiled; host-only, no device
  /// work). Throws tg::Error naming the spec when the driver refuses it.
  void encodeTensorMap(TensorMapBytes& out, const TensorMapSpec& spec, DevicePtr base);

  /// Device events for timing (benchmarks): record on tg's stream, read elapsed milliseconds.
  void* createEvent();
  void destroyEvent(void* event);
  void recordEvent(void* event);
  float elapsedMs(void* start, void* end);

  /// tg's stream, as a CUstream.
  void* stream() const { return stream_; }
  /// Free and total device memory in bytes (the whole device's: other processes count).
  std::pair<size_t, size_t> memoryInfo();
  /// Device memory this process's tg holds from the driver now (live buffers, slabs, kept
  /// buffers): what tests of tg's own memory use compare, whatever else runs on the GPU.
  size_t bytesFromDriver() const { return allocator_->bytesFromDriver(); }

  /// Returns what tg holds for the whole process to the driver: the pinned staging buffer, the
  /// tg::check flag, the small-buffer slabs and the kept large buffers (after waiting for the
  /// stream). Runs at exit (registered when the GPU is opened), so that a leak checker sees
  /// every allocation freed; buffers released after it go straight to the driver (small ones,
  /// whose slab is gone, to nobody).
  void releaseProcessResources();

  // Used by DeviceBuffer and Module.
  /// Keeps the `bytes` at `ptr` for reuse by allocate(), or frees them (stream-ordered).
  void release(DevicePtr ptr, size_t bytes) { allocator_->release(ptr, bytes); }
  void unload(void* module);

 private:
  friend class Module;
  friend class CudaGraph;  // builds and launches graphs through the driver table
  Gpu() = default;
  void check(int result, const char* what);
  void copyStaged(DevicePtr device, void* host, size_t bytes, bool toDevice);

  const void* driver_ = nullptr;  // CudaDriver
  DeviceInfo info_;
  void* context_ = nullptr;
  void* stream_ = nullptr;
  void* staging_ = nullptr;       // pinned host memory
  size_t stagingBytes_ = 0;
  void* stagingFree_ = nullptr;   // event: the last copy through staging has finished
  std::unique_ptr<DeviceMemory> memory_;  // the driver's stream-ordered allocations
  std::unique_ptr<CachingAllocator> allocator_;
};

}  // namespace tg::rt
