//===- DiskCache.h - Compiled kernels on disk, safe against every failure --===//
//
// Cubins survive the process in $TG_CACHE_DIR (default ~/.cache/tg), one file per kernel under
// kernels/, named by a hash of the full key (KernelCache.h lists its fields). A file holds the
// key's fields, the cubin and a checksum of both:
//   - written to a temporary file in the same directory and renamed over the name, so a
//     reader never sees half a file and two processes storing the same kernel both succeed;
//   - trusted only if its magic, format version, lengths, checksum and every key field match:
//     a corrupt, truncated or foreign file is reported once and recompiled (then overwritten);
//   - when the directory cannot be written, tg warns once and keeps kernels in memory only.
// Works without a GPU (NVRTC compiles on any machine).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Runtime/KernelCache.h"

#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tg::rt {

/// A key's fields by name, in a fixed order (what an entry stores; what a miss compares).
std::vector<std::pair<std::string, std::string>> keyFields(const KernelKey& key,
                                                           const std::string& kernelName);

struct DiskEntryInfo {
  std::string file;
  std::string kernelName;
  std::string arch;
  uint64_t bytes = 0;  ///< file size
  bool valid = false;  ///< header, lengths and checksum check out
};

class DiskCache {
 public:
  /// A cache rooted at `dir` (nothing is created until the first store).
  explicit DiskCache(std::string dir);
  /// $TG_CACHE_DIR if set, else $HOME/.cache/tg (empty when neither exists).
  static std::string defaultDir();

  const std::string& dir() const { return dir_; }
  /// False once a store failed because the directory is not writable (memory-only from then).
  bool writable() const;

  /// The cubin stored for `key`, if a valid entry matches every field.
  std::optional<std::string> load(const KernelKey& key, const std::string& kernelName);
  /// Stores the cubin for `key` atomically. Never throws; failures warn once.
  void store(const KernelKey& key, const std::string& kernelName, const std::string& cubin);

  /// Why `key` has no entry: the first field that differs from the nearest entry for the same
  /// kernel name ("nvrtc: 13000 -> 13010", "source: differs from line 42"), or that there is
  /// no entry for that kernel at all.
  std::string explainMiss(const KernelKey& key, const std::string& kernelName) const;

  std::vector<DiskEntryInfo> list() const;
  /// Removes every entry (and leftover temporary file); returns how many files went.
  size_t clear();
  /// Problems reported so far (one line each; each also went to stderr once).
  std::vector<std::string> problems() const;

 private:
  std::string pathFor(const KernelKey& key, const std::string& kernelName) const;
  void report(const std::string& problem) const;

  std::string dir_;
  mutable std::mutex mutex_;
  mutable std::set<std::string> reported_;
  mutable std::vector<std::string> problems_;
  bool disabled_ = false;
};

}  // namespace tg::rt
