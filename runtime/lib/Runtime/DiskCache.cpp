//===- DiskCache.cpp - Kernel entries on disk: format, checks, atomic writes ===//
#include "tg/Runtime/DiskCache.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
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

std::optional<std::string> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

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
  std::optional<std::string> bytes = readFile(path);
  if (!bytes) return std::nullopt;
  Parsed parsed;
  if (std::string why = parse(*bytes, parsed); !why.empty()) {
    std::lock_guard<std::mutex> lock(mutex_);
    report(path + ": " + why + "; recompiling");
    return std::nullopt;
  }
  if (parsed.fields != keyFields(key, kernelName)) return std::nullopt;  // another key's file
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

  const fs::path path = pathFor(key, kernelName);
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  fs::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rng());
  bool ok = !ec;
  if (ok) {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    ok = static_cast<bool>(out);
  }
  if (ok) {
    fs::rename(tmp, path, ec);  // atomic: readers see the old file or the new one
    ok = !ec;
  }
  if (!ok) {
    fs::remove(tmp, ec);
    std::lock_guard<std::mutex> lock(mutex_);
    disabled_ = true;
    report("cannot write to " + dir_ + "; keeping compiled kernels in memory only");
  }
}

std::string DiskCache::explainMiss(const KernelKey& key, const std::string& kernelName) const {
  auto wanted = keyFields(key, kernelName);
  std::string best;
  size_t bestDiffs = SIZE_MAX;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(dir_) / "kernels", ec)) {
    if (entry.path().extension() != ".tgk") continue;
    std::optional<std::string> bytes = readFile(entry.path().string());
    Parsed parsed;
    if (!bytes || !parse(*bytes, parsed).empty() || parsed.fields.size() != wanted.size() ||
        parsed.fields[0].second != kernelName)
      continue;
    size_t diffs = 0;
    std::string first;
    for (size_t i = 0; i < wanted.size(); ++i)
      if (parsed.fields[i].second != wanted[i].second) {
        if (first.empty())
          first = firstDifference(wanted[i].first, parsed.fields[i].second, wanted[i].second);
        ++diffs;
      }
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
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(dir_) / "kernels", ec)) {
    if (entry.path().extension() != ".tgk") continue;
    DiskEntryInfo info;
    info.file = entry.path().string();
    info.bytes = entry.file_size(ec);
    if (std::optional<std::string> bytes = readFile(info.file)) {
      Parsed parsed;
      info.valid = parse(*bytes, parsed).empty();
      for (const auto& [name, value] : parsed.fields) {
        if (name == "kernel") info.kernelName = value;
        if (name == "arch") info.arch = value;
      }
    }
    out.push_back(std::move(info));
  }
  return out;
}

size_t DiskCache::clear() {
  size_t removed = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(dir_) / "kernels", ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".tgk" || name.find(".tgk.tmp.") != std::string::npos)
      if (fs::remove(entry.path(), ec)) ++removed;
  }
  return removed;
}

std::vector<std::string> DiskCache::problems() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return problems_;
}

}  // namespace tg::rt
