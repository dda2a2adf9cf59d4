//===- NvrtcIdentity.cpp - NVRTC's version without loading NVRTC -----------===//
//
// Every kernel-cache key holds NVRTC's version, and asking NVRTC for it means loading it:
// dlopen of a 100 MiB library, about 10 ms warm and 100 ms cold, which would be most of a warm
// start that finds every kernel on disk and compiles nothing. So the version is remembered in
// the cache directory against the identity of the library file (path, size, modification
// time) and read back when that file has not changed. loadNvrtc() opens exactly the file
// nvrtcLibraryPath() names, so the identity is the identity of what would be loaded.
//
//===----------------------------------------------------------------------===//
#include "tg/Runtime/Nvrtc.h"

#include "tg/Support/FileIO.h"

#include <climits>
#include <cstdlib>
#include <sstream>
#include <sys/stat.h>
#include <vector>

namespace tg::rt {

namespace {

constexpr const char* kLibrary = "libnvrtc.so.13";
constexpr const char* kRememberedFile = "nvrtc-version";
/// A resolved library path, its size and mtime, and a version: far below this.
constexpr uint64_t kMaxRememberedBytes = 64 * 1024;

bool isFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

std::string nvrtcLibraryPath() {
  std::vector<std::string> dirs;
  if (const char* ld = std::getenv("LD_LIBRARY_PATH")) {
    std::stringstream ss(ld);
    for (std::string d; std::getline(ss, d, ':');)
      if (!d.empty()) dirs.push_back(d);
  }
  if (const char* home = std::getenv("CUDA_HOME")) dirs.push_back(std::string(home) + "/lib64");
  dirs.push_back("/usr/local/cuda/lib64");
  for (const std::string& d : dirs)
    if (isFile(d + "/" + kLibrary)) return d + "/" + kLibrary;
  return {};
}

std::string nvrtcLibraryIdentity() {
  const std::string path = nvrtcLibraryPath();
  if (path.empty()) return {};
  char resolved[PATH_MAX];
  struct stat st;
  if (!::realpath(path.c_str(), resolved) || ::stat(resolved, &st) != 0) return {};
  return std::string(resolved) + " " + std::to_string(st.st_size) + " " +
         std::to_string(static_cast<long long>(st.st_mtim.tv_sec)) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

std::optional<int> readRememberedNvrtcVersion(const std::string& dir, const std::string& identity) {
  if (dir.empty() || identity.empty()) return std::nullopt;
  // A regular file of one short line only: a FIFO or a link to /dev/zero at the name is
  // ignored (and replaced by the next rememberNvrtcVersion), never read.
  RegularFileRead file = readRegularFile(dir + "/" + kRememberedFile, kMaxRememberedBytes);
  if (!file.bytes) return std::nullopt;
  const size_t end = file.bytes->find('\n');
  if (end == std::string::npos) return std::nullopt;
  const std::string line = file.bytes->substr(0, end);
  const size_t tab = line.rfind('\t');
  if (tab == std::string::npos || line.substr(0, tab) != identity) return std::nullopt;
  try {
    size_t used = 0;
    int version = std::stoi(line.substr(tab + 1), &used);
    if (used != line.size() - tab - 1 || version <= 0) return std::nullopt;
    return version;
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged file is ignored and rewritten
  }
}

void rememberNvrtcVersion(const std::string& dir, const std::string& identity, int version) {
  if (dir.empty() || identity.empty()) return;
  // Written like the cache's entries (a name tg owns): a reader sees the old line or the new
  // one. A failure (an unwritable directory, a full disk) only costs the next start 10 ms.
  (void)writeFileAtomically(dir + "/" + kRememberedFile,
                            {identity + '\t' + std::to_string(version) + '\n'},
                            TargetPolicy::OwnedName);
}

int nvrtcVersionRemembered(const std::string& dir) {
  const std::string identity = nvrtcLibraryIdentity();
  if (std::optional<int> v = readRememberedNvrtcVersion(dir, identity)) return *v;
  const int version = nvrtcVersion();  // loads NVRTC
  rememberNvrtcVersion(dir, identity, version);
  return version;
}

}  // namespace tg::rt
