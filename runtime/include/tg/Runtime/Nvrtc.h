//===- Nvrtc.h - CUDA C++ -> cubin / PTX with NVRTC -----------------------===//
//
// NVRTC is opened with dlopen (libnvrtc.so.13, then $CUDA_HOME/lib64 and /usr/local/cuda/lib64),
// so binaries start without the toolkit and a missing NVRTC is a tg::Error, not a loader
// failure. Works without a GPU: compile-only tools and tests use it on any machine.
//
//===----------------------------------------------------------------------===//
#pragma once

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
/// True when NVRTC can be loaded; otherwise `reason` says why.
bool nvrtcAvailable(std::string* reason = nullptr);

}  // namespace tg::rt
