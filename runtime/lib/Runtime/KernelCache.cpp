//===- KernelCache.cpp - In-memory cache of compiled, loaded kernels ------===//
#include "tg/Runtime/KernelCache.h"

#include "tg/Runtime/DiskCache.h"
#include "tg/Runtime/Nvrtc.h"

#include <chrono>

namespace tg::rt {

std::string KernelKey::serialize() const {
  std::string s;
  auto field = [&](const std::string& name, const std::string& value) {
    s += name + ":" + std::to_string(value.size()) + ":" + value + ";";
  };
  field("arch", arch);
  for (const std::string& o : options) field("option", o);
  field("nvrtc", std::to_string(nvrtcVersion));
  field("driver", std::to_string(driverVersion));
  field("tg", tgVersion);
  field("source", source);
  return s;
}

uint64_t KernelKey::hash() const {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : serialize()) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

const std::vector<std::string>& defaultNvrtcOptions() {
  static const std::vector<std::string> options = {"--fmad=false"};
  return options;
}

KernelKey kernelKey(const KernelSource& kernel, const std::string& arch, int driverVersion) {
  // Once per process; from the cache directory when it remembers this NVRTC (no dlopen).
  static const int nvrtc = [] {
    const std::string dir = DiskCache::defaultDir();
    return dir.empty() ? nvrtcVersion() : nvrtcVersionRemembered(dir);
  }();
  return KernelKey{kernel.source, arch, defaultNvrtcOptions(), nvrtc, driverVersion,
                   TG_VERSION_STRING};
}

std::string cubinFor(DiskCache* disk, const KernelSource& kernel, const KernelKey& key,
                     bool* fromDisk, double* compileMs) {
  if (disk)
    if (std::optional<std::string> cubin = disk->load(key, kernel.name)) {
      if (fromDisk) *fromDisk = true;
      return std::move(*cubin);
    }
  if (fromDisk) *fromDisk = false;
  auto t0 = std::chrono::steady_clock::now();
  NvrtcResult compiled = compileCuda(kernel.source, kernel.name + ".cu", key.arch, key.options);
  if (compileMs)
    *compileMs +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (disk) disk->store(key, kernel.name, compiled.cubin);
  return std::move(compiled.cubin);
}

KernelCache::KernelCache() {
  std::string dir = DiskCache::defaultDir();
  if (!dir.empty()) disk_ = std::make_unique<DiskCache>(dir);
}

KernelCache& KernelCache::instance() {
  static KernelCache* cache = new KernelCache();
  return *cache;
}

DiskCache* KernelCache::disk() { return disk_.get(); }

KernelCache::Stats KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void* KernelCache::function(Gpu& gpu, const KernelSource& kernel) {
  KernelKey key = kernelKey(kernel, gpu.info().arch(), gpu.info().driverVersion);
  std::string full = key.serialize();
  uint64_t h = key.hash();
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Entry& e : entries_[h]) {
    if (e.key == full) {
      ++stats_.hits;
      return e.function;
    }
  }
  bool fromDisk = false;
  std::string cubin = cubinFor(disk_.get(), kernel, key, &fromDisk, &stats_.compileMs);
  ++(fromDisk ? stats_.diskHits : stats_.misses);
  auto t0 = std::chrono::steady_clock::now();
  Entry entry;
  entry.key = std::move(full);
  entry.module = gpu.load(cubin);
  entry.function = entry.module->function(kernel.name);
  stats_.loadMs +=
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  void* f = entry.function;
  entries_[h].push_back(std::move(entry));
  return f;
}

}  // namespace tg::rt
