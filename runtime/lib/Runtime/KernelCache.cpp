//===- KernelCache.cpp - In-memory cache of compiled, loaded kernels ------===//
#include "tg/Runtime/KernelCache.h"

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

KernelCache& KernelCache::instance() {
  static KernelCache* cache = new KernelCache();
  return *cache;
}

KernelCache::Stats KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void* KernelCache::function(Gpu& gpu, const KernelSource& kernel) {
  KernelKey key{kernel.source,  gpu.info().arch(),       defaultNvrtcOptions(),
                nvrtcVersion(), gpu.info().driverVersion, TG_VERSION_STRING};
  std::string full = key.serialize();
  uint64_t h = key.hash();
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Entry& e : entries_[h]) {
    if (e.key == full) {
      ++stats_.hits;
      return e.function;
    }
  }
  ++stats_.misses;
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  NvrtcResult compiled = compileCuda(kernel.source, kernel.name + ".cu", key.arch, key.options);
  auto t1 = Clock::now();
  Entry entry;
  entry.key = std::move(full);
  entry.module = gpu.load(compiled.cubin);
  entry.function = entry.module->function(kernel.name);
  auto t2 = Clock::now();
  stats_.compileMs += std::chrono::duration<double, std::milli>(t1 - t0).count();
  stats_.loadMs += std::chrono::duration<double, std::milli>(t2 - t1).count();
  void* f = entry.function;
  entries_[h].push_back(std::move(entry));
  return f;
}

}  // namespace tg::rt
