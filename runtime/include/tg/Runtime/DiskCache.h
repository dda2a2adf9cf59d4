//===- DiskCache.h - Compiled kernels on disk, safe against every failure --===//
//
// Cubins survive the process in $TG_CACHE_DIR (default ~/.cache/tg), one file per kernel under
// kernels/, named by a hash of the full key (KernelCache.h lists its fields). A file holds the
// key's fields, the cubin and a checksum of both:
//   - written by tg::writeFileAtomically (tg/Support/FileIO.h) as a name tg owns: a
//     temporary file in the same directory, every write, the fsync and the close checked, then
//     renamed over the name, so a reader never sees half a file and two processes storing the
//     same kernel both succeed; a link or a FIFO at the name is replaced, never followed;
//   - read only from a regular file (never through a symbolic link, never blocking on a FIFO)
//     of at most kMaxEntryBytes (256 MiB: far above any cubin plus its key, far below what
//     reading /dev/zero would take), and trusted only if its magic, format version, lengths,
//     checksum and every key field match: a corrupt, truncated, foreign or odd file (a
//     directory, a FIFO, a link), or the entry of another key copied over this one's name, is
//     reported once and recompiled (then overwritten where it can be);
//   - a directory at an entry's name blocks that entry only (reported once; the kernel stays in
//     memory); `clear` removes it when it is empty and reports it when it is not (never
//     removing what is inside);
//   - when the directory cannot be written (or the disk is full, or `ulimit -f` is reached),
//     tg warns once and keeps kernels in memory only.
// Works without a GPU (NVRTC compiles on any machine). Never throws but std::bad_alloc.
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

/// The largest entry tg reads or writes.
inline constexpr uint64_t kMaxEntryBytes = uint64_t{256} << 20;

struct DiskEntryInfo {
  std::string file;
  std::string kernelName;
  std::string arch;
  uint64_t bytes = 0;  ///< file size (0 for what is not a regular file)
  bool valid = false;  ///< a regular file whose header, lengths and checksum check out
  /// Why it is not valid ("checksum mismatch (corrupt)", "a directory, not a cache entry");
  /// empty when valid. (Whether the entry belongs at its name is checked by load.)
  std::string problem;
};

class DiskCache {
 public:
  /// A cache rooted at `dir` (nothing is created until the first store).
  explicit DiskCache(std::string dir);
  /// $TG_CACHE_DIR if set, else $HOME/.cache/tg (empty when neither exists).
  static std::string defaultDir();

  const std::string& dir() const { return dir_; }
  /// False once a store failed because the directory is not writable or the disk is full
  /// (memory-only from then). A directory at one entry's name does not make it false.
  bool writable() const;

  /// The cubin stored for `key`, if a valid entry matches every field.
  std::optional<std::string> load(const KernelKey& key, const std::string& kernelName);
  /// Stores the cubin for `key` atomically. Never throws; failures warn once.
  void store(const KernelKey& key, const std::string& kernelName, const std::string& cubin);

  /// Why `key` has no entry: the first field that differs from the nearest entry for the same
  /// kernel name ("nvrtc: 13000 -> 13010", "source: differs from line 42"), or that there is
  /// no entry for that kernel at all.
  std::string explainMiss(const KernelKey& key, const std::string& kernelName) const;

  /// Every file named like an entry, sorted by name; nothing is opened but regular files.
  std::vector<DiskEntryInfo> list() const;
  /// Removes every entry and leftover temporary file, and an empty directory at an entry's
  /// name; returns how many went. What cannot be removed (a directory that holds files, a file
  /// unlink refuses) is reported as a problem and left in place.
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
