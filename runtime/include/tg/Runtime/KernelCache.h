//===- KernelCache.h - Compiled kernels, keyed by everything that shapes them ===//
//
// The key of a kernel. Two kernels share a cache entry only if every field is equal:
//   source        the complete generated CUDA C++ (template + generated body + entry name):
//                 any change to tg's templates or emitter changes the source, hence the key
//   arch          the NVRTC target, e.g. sm_90a (machine code is per architecture)
//   options       the NVRTC flags tg passes (--fmad=false, ...)
//   nvrtcVersion  a different compiler may generate different machine code
//   driverVersion the driver that will load the cubin (kept so a persistent cache written
//                 under one driver is never trusted under another)
//   tgVersion     the kernel ABI tg expects (parameter struct layout, launch conventions)
// In memory the cache maps the key to the loaded module and function; on disk (DiskCache.h) it
// keeps cubins across processes. A jit program looks its kernels up once, when it is built; the
// per-call path never touches the cache.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Runtime/Gpu.h"
#include "tg/Runtime/Plan.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace tg::rt {

struct KernelKey {
  std::string source;
  std::string arch;
  std::vector<std::string> options;
  int nvrtcVersion = 0;
  int driverVersion = 0;
  std::string tgVersion;

  /// All fields, serialised unambiguously (the value compared on a hit).
  std::string serialize() const;
  /// 64-bit FNV-1a of serialize(): the map key.
  uint64_t hash() const;
};

/// The NVRTC flags every tg kernel is compiled with. --fmad=false keeps a * b + c two rounded
/// operations, as the reference computes it (f32 fused and unfused kernels then agree bit for
/// bit).
const std::vector<std::string>& defaultNvrtcOptions();

class DiskCache;

/// The key of `kernel` compiled for `arch` and loaded by driver `driverVersion`.
KernelKey kernelKey(const KernelSource& kernel, const std::string& arch, int driverVersion);

/// The cubin for `key`: from `disk` when it holds a valid entry (then *fromDisk is set), else
/// compiled with NVRTC and stored there. `disk` may be null. Throws tg::Error with NVRTC's log.
std::string cubinFor(DiskCache* disk, const KernelSource& kernel, const KernelKey& key,
                     bool* fromDisk = nullptr, double* compileMs = nullptr);

class KernelCache {
 public:
  /// The process's cache; its disk layer lives in DiskCache::defaultDir() ($TG_CACHE_DIR).
  static KernelCache& instance();

  struct Stats {
    uint64_t hits = 0;       ///< found loaded in memory
    uint64_t diskHits = 0;   ///< cubin read from the disk cache (no NVRTC)
    uint64_t misses = 0;     ///< compiled with NVRTC
    double compileMs = 0;    ///< Time spent in NVRTC.
    double loadMs = 0;       ///< Time spent loading modules.
  };

  /// The loaded entry point of `kernel` compiled for `gpu`. Compiles and loads on a miss;
  /// throws tg::Error (with NVRTC's log) when compilation fails.
  void* function(Gpu& gpu, const KernelSource& kernel);
  /// function() of every kernel of a program, with the misses read from disk or compiled in
  /// parallel (NVRTC is thread-safe; one thread per miss, at most the machine's cores), then
  /// loaded in order. Throws the first failure's tg::Error after every compilation ended.
  /// `call`, when given, receives this call's own counts (hits, disk hits, misses, the NVRTC
  /// time summed over the threads).
  std::vector<void*> functions(Gpu& gpu, const std::vector<KernelSource>& kernels, Stats* call = nullptr);
  Stats stats() const;
  /// The disk layer (null when there is no cache directory).
  DiskCache* disk();

 private:
  KernelCache();
  std::unique_ptr<DiskCache> disk_;
  struct Entry {
    std::string key;
    std::unique_ptr<Module> module;
    void* function = nullptr;
  };
  /// The loaded function for `full` (a serialized key), or null. Call with mutex_ held.
  void* findLocked(uint64_t hash, const std::string& full);
  /// Loads `cubin` and records it under `full`. Call with mutex_ held.
  void* insertLocked(Gpu& gpu, uint64_t hash, std::string full, const std::string& cubin, const std::string& name);
  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, std::vector<Entry>> entries_;
  Stats stats_;
};

}  // namespace tg::rt
