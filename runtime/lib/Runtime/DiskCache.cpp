//===- DiskCache.cpp - Kernel entries on disk: format, checks, atomic writes ===//
#include "tg/Runtime/DiskCache.h"

#include "tg/Support/FileIO.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace tg::rt {

namespace {

constexpr char kMagic[8] = {'T', 'G', 'K', 'C', 'A', 'C', 'H', 'E'};
constexpr uint32_t kFormat = 1;

uint64_t fnv1a(const char* data, size_t size, uint64_t h = 0xcbf29ce484222325ull) {
  for (size_t i = 0; i < size; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 0x100000001b3ull;
  }
  return h;
}

template <typename T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

/// Reads a little-endian value at `pos`; false when the buffer is too short (truncated).
template <typename T>
bool get(const std::string& in, size_t& pos, T& value) {
  if (in.size() < pos + sizeof(T)) return false;
  std::memcpy(&value, in.data() + pos, sizeof(T));
  pos += sizeof(T);
  return true;
}

struct Parsed {
  std::vector<std::pair<std::string, std::string>> fields;
  std::string cubin;
};

/// Parses an entry; on failure returns why ("truncated", "not a tg cache entry", ...).
std::string parse(const std::string& bytes, Parsed& out) {
  if (bytes.size() < sizeof(kMagic) || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0)
    return "not a tg kernel cache entry (bad magic)";
  size_t pos = sizeof(kMagic);
  uint32_t format = 0, count = 0;
  if (!get(bytes, pos, format)) return "truncated";
  if (format != kFormat)
    return "written by another tg version (format " + std::to_string(format) + ")";
  if (!get(bytes, pos, count) || count > 64) return "truncated or malformed header";
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t nameLen = 0;
    uint64_t valueLen = 0;
    if (!get(bytes, pos, nameLen) || bytes.size() < pos + nameLen) return "truncated";
    std::string name = bytes.substr(pos, nameLen);
    pos += nameLen;
    if (!get(bytes, pos, valueLen) || bytes.size() - pos < valueLen) return "truncated";
    out.fields.emplace_back(std::move(name), bytes.substr(pos, valueLen));
    pos += valueLen;
  }
  uint64_t cubinLen = 0;
  if (!get(bytes, pos, cubinLen) || bytes.size() - pos < cubinLen) return "truncated";
  out.cubin = bytes.substr(pos, cubinLen);
  pos += cubinLen;
  const size_t checked = pos;
  uint64_t checksum = 0;
  if (!get(bytes, pos, checksum)) return "truncated (no checksum)";
  if (pos != bytes.size()) return "trailing bytes after the checksum";
  if (checksum != fnv1a(bytes.data(), checked)) return "checksum mismatch (corrupt)";
  return {};
}

/// An entry file's bytes, or why there are none: `problem` is empty when nothing is there.
struct EntryBytes {
  std::optional<std::string> bytes;
  std::string problem;
  uint64_t size = 0;  ///< a regular file's size (also when it is too large to read)
};

/// Reads an entry only from a regular file of at most kMaxEntryBytes (readRegularFile).
EntryBytes readEntry(const std::string& path) {
  RegularFileRead read = readRegularFile(path, kMaxEntryBytes);
  EntryBytes out{std::move(read.bytes), std::move(read.problem), read.size};
  if (read.notRegular) {
    out.problem = std::string(read.notRegular) + ", not a cache entry";
  } else if (read.size > kMaxEntryBytes) {
    out.problem = std::to_string(read.size) + " bytes, larger than the " +
                  std::to_string(kMaxEntryBytes >> 20) + " MiB limit of an entry";
  }
  return out;
}

/// The paths in `dir` whose names are tg's: entries ("*.tgk") and, with `temporaries`, the
/// temporary files of stores ("*.tgk.tmp.*"); sorted. Never throws on I/O errors.
std::vector<fs::path> namesIn(const fs::path& dir, bool temporaries) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->path().extension() == ".tgk" ||
        (temporaries && name.find(".tgk.tmp.") != std::string::npos))
      out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The first key field where `stored` differs from `wanted` (firstDifference's words), and how
/// many differ; ("", 0) when all match.
std::pair<std::string, size_t> compareFields(
    const std::vector<std::pair<std::string, std::string>>& stored,
    const std::vector<std::pair<std::string, std::string>>& wanted);

std::string firstDifference(const std::string& name, const std::string& was,
                            const std::string& now) {
  if (name != "source") return name + ": " + was + " -> " + now;
  size_t line = 1;
  for (size_t i = 0; i < std::min(was.size(), now.size()); ++i) {
    if (was[i] != now[i]) return "source: differs from line " + std::to_string(line);
    if (was[i] == '\n') ++line;
  }
  return "source: differs from line " + std::to_string(line) + " (one is a prefix of the other)";
}

std::pair<std::string, size_t> compareFields(
    const std::vector<std::pair<std::string, std::string>>& stored,
    const std::vector<std::pair<std::string, std::string>>& wanted) {
  if (stored.size() != wanted.size())
    return {"the entry has " + std::to_string(stored.size()) + " key fields, not " +
                std::to_string(wanted.size()),
            wanted.size()};
  std::string first;
  size_t diffs = 0;
  for (size_t i = 0; i < wanted.size(); ++i)
    if (stored[i] != wanted[i]) {
      if (first.empty())
        first = stored[i].first != wanted[i].first
                    ? "field " + stored[i].first + " where " + wanted[i].first + " belongs"
                    : firstDifference(wanted[i].first, stored[i].second, wanted[i].second);
      ++diffs;
    }
  return {first, diffs};
}

}  // namespace

std::vector<std::pair<std::string, std::string>> keyFields(const KernelKey& key,
                                                           const std::string& kernelName) {
  std::string options;
  for (const std::string& o : key.options) options += (options.empty() ? "" : " ") + o;
  return {{"kernel", kernelName},
          {"arch", key.arch},
          {"options", options},
          {"nvrtc", std::to_string(key.nvrtcVersion)},
          {"driver", std::to_string(key.driverVersion)},
          {"tg", key.tgVersion},
          {"source", key.source}};
}

DiskCache::DiskCache(std::string dir) : dir_(std::move(dir)) {
  if (dir_.empty()) disabled_ = true;
}

std::string DiskCache::defaultDir() {
  if (const char* env = std::getenv("TG_CACHE_DIR")) return env;
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/tg";
  return {};
}

bool DiskCache::writable() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !disabled_;
}

std::string DiskCache::pathFor(const KernelKey& key, const std::string& kernelName) const {
  char name[32];
  std::snprintf(name, sizeof(name), "%016llx.tgk",
                static_cast<unsigned long long>(fnv1a(kernelName.data(), kernelName.size(), key.hash())));
  return (fs::path(dir_) / "kernels" / name).string();
}

void DiskCache::report(const std::string& problem) const {
  if (!reported_.insert(problem).second) return;
  problems_.push_back(problem);
  std::fprintf(stderr, "tg: kernel cache: %s\n", problem.c_str());
}

std::optional<std::string> DiskCache::load(const KernelKey& key, const std::string& kernelName) {
  if (dir_.empty()) return std::nullopt;
  const std::string path = pathFor(key, kernelName);
  EntryBytes entry = readEntry(path);
  std::string why = entry.problem;
  Parsed parsed;
  if (entry.bytes) why = parse(*entry.bytes, parsed);
  // A valid entry of another key at this name was copied (or renamed) here: the 64-bit name
  // hash makes a true collision astronomically unlikely, so it is reported as corruption.
  if (why.empty() && entry.bytes)
    if (auto [first, diffs] = compareFields(parsed.fields, keyFields(key, kernelName)); diffs)
      why = "holds the entry of another kernel (" + first + ")";
  if (!why.empty()) {
    std::lock_guard<std::mutex> lock(mutex_);
    report(path + ": " + why + "; recompiling");
  }
  if (!why.empty() || !entry.bytes) return std::nullopt;
  return std::move(parsed.cubin);
}

void DiskCache::store(const KernelKey& key, const std::string& kernelName,
                      const std::string& cubin) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (disabled_) return;
  }
  std::string bytes(kMagic, sizeof(kMagic));
  put<uint32_t>(bytes, kFormat);
  auto fields = keyFields(key, kernelName);
  put<uint32_t>(bytes, static_cast<uint32_t>(fields.size()));
  for (const auto& [name, value] : fields) {
    put<uint32_t>(bytes, static_cast<uint32_t>(name.size()));
    bytes += name;
    put<uint64_t>(bytes, value.size());
    bytes += value;
  }
  put<uint64_t>(bytes, cubin.size());
  bytes += cubin;
  put<uint64_t>(bytes, fnv1a(bytes.data(), bytes.size()));

  const std::string path = pathFor(key, kernelName);
  if (bytes.size() > kMaxEntryBytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    report(path + ": the entry would be " + std::to_string(bytes.size()) + " bytes, above the " +
           std::to_string(kMaxEntryBytes >> 20) + " MiB limit; this kernel is kept in memory only");
    return;
  }
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  WriteFailure failed;
  if (ec)
    failed.message = "cannot create " + fs::path(path).parent_path().string() + ": " + ec.message();
  else
    failed = writeFileAtomically(path, {bytes}, TargetPolicy::OwnedName);
  if (!failed) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (failed.atTarget) {  // a directory at this entry's name: only this entry is lost
    report(path + ": a directory, not a cache entry; this kernel is kept in memory only "
                  "(`tgc cache clear` removes the directory when it is empty)");
    return;
  }
  disabled_ = true;
  report("cannot write to " + dir_ + " (" + failed.message +
         "); keeping compiled kernels in memory only");
}

std::string DiskCache::explainMiss(const KernelKey& key, const std::string& kernelName) const {
  auto wanted = keyFields(key, kernelName);
  std::string best;
  size_t bestDiffs = SIZE_MAX;
  for (const fs::path& file : namesIn(fs::path(dir_) / "kernels", /*temporaries=*/false)) {
    EntryBytes entry = readEntry(file.string());
    Parsed parsed;
    if (!entry.bytes || !parse(*entry.bytes, parsed).empty() ||
        parsed.fields.size() != wanted.size() || parsed.fields[0].second != kernelName)
      continue;
    auto [first, diffs] = compareFields(parsed.fields, wanted);
    if (diffs == 0) return "an entry matches (it was stored after the lookup)";
    if (diffs < bestDiffs) {
      bestDiffs = diffs;
      best = first;
    }
  }
  return best.empty() ? "no entry for kernel '" + kernelName + "' in " + dir_ : best;
}

std::vector<DiskEntryInfo> DiskCache::list() const {
  std::vector<DiskEntryInfo> out;
  for (const fs::path& file : namesIn(fs::path(dir_) / "kernels", /*temporaries=*/false)) {
    DiskEntryInfo info;
    info.file = file.string();
    EntryBytes entry = readEntry(info.file);
    info.problem = entry.problem;
    info.bytes = entry.size;
    if (entry.bytes) {
      Parsed parsed;
      info.problem = parse(*entry.bytes, parsed);
      for (const auto& [name, value] : parsed.fields) {
        if (name == "kernel") info.kernelName = value;
        if (name == "arch") info.arch = value;
      }
    } else if (info.problem.empty()) {
      continue;  // removed since the directory was read
    }
    info.valid = info.problem.empty();
    out.push_back(std::move(info));
  }
  return out;
}

size_t DiskCache::clear() {
  size_t removed = 0;
  for (const fs::path& file : namesIn(fs::path(dir_) / "kernels", /*temporaries=*/true)) {
    struct stat st;
    if (::lstat(file.c_str(), &st) != 0) continue;  // removed meanwhile
    // rmdir removes a directory only when it is empty: what is inside is never touched.
    if (S_ISDIR(st.st_mode) ? ::rmdir(file.c_str()) == 0 : ::unlink(file.c_str()) == 0) {
      ++removed;
      continue;
    }
    const int err = errno;
    std::lock_guard<std::mutex> lock(mutex_);
    if (S_ISDIR(st.st_mode) && (err == ENOTEMPTY || err == EEXIST))
      report(file.string() +
             ": a directory that is not empty, not a cache entry; left in place (remove it "
             "yourself if it is not needed)");
    else
      report(file.string() + ": cannot remove: " + std::strerror(err));
  }
  return removed;
}

std::vector<std::string> DiskCache::problems() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return problems_;
}

}  // namespace tg::rt
