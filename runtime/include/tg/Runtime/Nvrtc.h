//===- Nvrtc.h - CUDA C++ -> cubin / PTX with NVRTC -----------------------===//
//
// NVRTC is opened with dlopen (the file nvrtcLibraryPath() names, else the loader's search for
// libnvrtc.so.13),
// so binaries start without the toolkit and a missing NVRTC is a tg::Error, not a loader
// failure. Works without a GPU: compile-only tools and tests use it on any machine.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tg::rt {

struct NvrtcResult {
  std::string cubin;  ///< Machine code for the requested sm_ target (empty for compute_).
  std::string ptx;    ///< The PTX NVRTC generated.
  std::string log;    ///< Compiler messages (warnings), even on success.
};

/// Compiles `source` (header-free CUDA C++) for `arch` ("sm_90a", "sm_80", ...; "compute_90a"
/// gives PTX only). `fileName` names the source in messages. Throws tg::Error carrying the log
/// on failure.
NvrtcResult compileCuda(const std::string& source, const std::string& fileName,
                        const std::string& arch, const std::vector<std::string>& options = {});

/// NVRTC's version as major * 1000 + minor * 10 (13000 for 13.0); throws if NVRTC is missing.
int nvrtcVersion();
/// nvrtcVersion() without loading NVRTC when cache directory `dir` remembers the version of
/// the same library file (its path, size and modification time); otherwise loads NVRTC and
/// remembers its version there. Loading NVRTC takes about 10 ms: a warm start that finds every
/// kernel in the disk cache then needs no compiler at all (NvrtcIdentity.cpp).
int nvrtcVersionRemembered(const std::string& dir);
/// The NVRTC library file that is loaded, found without loading it: libnvrtc.so.13 in each
/// directory of LD_LIBRARY_PATH, then $CUDA_HOME/lib64, then /usr/local/cuda/lib64; empty
/// when none has it (the dynamic loader's own search applies then).
std::string nvrtcLibraryPath();
/// "realpath size mtime" of nvrtcLibraryPath() (empty when there is none).
std::string nvrtcLibraryIdentity();
/// The remembered version for `identity` in `dir`, if that is what the file holds.
std::optional<int> readRememberedNvrtcVersion(const std::string& dir, const std::string& identity);
/// Remembers `version` for `identity` in `dir` (temporary file + rename; failures are ignored).
void rememberNvrtcVersion(const std::string& dir, const std::string& identity, int version);
/// True when NVRTC can be loaded; otherwise `reason` says why.
bool nvrtcAvailable(std::string* reason = nullptr);

}  // namespace tg::rt
