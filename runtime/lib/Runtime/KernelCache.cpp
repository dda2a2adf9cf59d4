//===- KernelCache.cpp - In-memory cache of compiled, loaded kernels ------===//
#include "tg/Runtime/KernelCache.h"

#include "tg/Runtime/DiskCache.h"
#include "tg/Runtime/Nvrtc.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>

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

void* KernelCache::findLocked(uint64_t hash, const std::string& full) {
  auto it = entries_.find(hash);
  if (it == entries_.end()) return nullptr;
  for (const Entry& e : it->second)
    if (e.key == full) return e.function;
  return nullptr;
}

void* KernelCache::insertLocked(Gpu& gpu, uint64_t hash, std::string full, const std::string& cubin,
                                const std::string& name) {
  auto t0 = std::chrono::steady_clock::now();
  Entry entry;
  entry.key = std::move(full);
  entry.module = gpu.load(cubin);
  entry.function = entry.module->function(name);
  stats_.loadMs += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  void* f = entry.function;
  entries_[hash].push_back(std::move(entry));
  return f;
}

void* KernelCache::function(Gpu& gpu, const KernelSource& kernel) {
  KernelKey key = kernelKey(kernel, gpu.info().arch(), gpu.info().driverVersion);
  std::string full = key.serialize();
  uint64_t h = key.hash();
  std::lock_guard<std::mutex> lock(mutex_);
  if (void* f = findLocked(h, full)) {
    ++stats_.hits;
    return f;
  }
  bool fromDisk = false;
  std::string cubin = cubinFor(disk_.get(), kernel, key, &fromDisk, &stats_.compileMs);
  ++(fromDisk ? stats_.diskHits : stats_.misses);
  return insertLocked(gpu, h, std::move(full), cubin, kernel.name);
}

std::vector<void*> KernelCache::functions(Gpu& gpu, const std::vector<KernelSource>& kernels, Stats* call) {
  Stats mine;
  struct Miss {
    const KernelSource* kernel;
    KernelKey key;
    std::string full;
    uint64_t hash;
    std::string cubin;
    bool fromDisk = false;
    double compileMs = 0;
    std::exception_ptr error;
  };
  std::vector<void*> out(kernels.size(), nullptr);
  std::vector<Miss> misses;
  std::vector<size_t> missOf(kernels.size(), 0);  // for each kernel not loaded yet: its Miss
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < kernels.size(); ++i) {
      KernelKey key = kernelKey(kernels[i], gpu.info().arch(), gpu.info().driverVersion);
      std::string full = key.serialize();
      const uint64_t h = key.hash();
      if ((out[i] = findLocked(h, full))) {
        ++stats_.hits;
        ++mine.hits;
        continue;
      }
      size_t m = 0;  // the same kernel twice in one program: compiled once
      while (m < misses.size() && misses[m].full != full) ++m;
      missOf[i] = m;
      if (m == misses.size()) misses.push_back({&kernels[i], std::move(key), std::move(full), h, {}, false, 0, nullptr});
    }
  }
  // Disk reads and NVRTC compilations, in parallel: each task owns its Miss.
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t m; (m = next.fetch_add(1)) < misses.size();) {
      Miss& miss = misses[m];
      try {
        miss.cubin = cubinFor(disk_.get(), *miss.kernel, miss.key, &miss.fromDisk, &miss.compileMs);
      } catch (...) {
        miss.error = std::current_exception();
      }
    }
  };
  const size_t threads = std::min<size_t>(misses.size(), std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  for (const Miss& m : misses)
    if (m.error) std::rethrow_exception(m.error);
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<void*> loaded(misses.size());
  for (size_t m = 0; m < misses.size(); ++m) {
    Miss& miss = misses[m];
    stats_.compileMs += miss.compileMs;
    mine.compileMs += miss.compileMs;
    ++(miss.fromDisk ? stats_.diskHits : stats_.misses);
    ++(miss.fromDisk ? mine.diskHits : mine.misses);
    loaded[m] = findLocked(miss.hash, miss.full);  // another thread may have loaded it meanwhile
    if (!loaded[m]) loaded[m] = insertLocked(gpu, miss.hash, miss.full, miss.cubin, miss.kernel->name);
  }
  for (size_t i = 0; i < kernels.size(); ++i)
    if (!out[i]) out[i] = loaded[missOf[i]];
  if (call) *call = mine;
  return out;
}

}  // namespace tg::rt
