//===- Nvrtc.cpp - NVRTC through dlopen -----------------------------------===//
#include "tg/Runtime/Nvrtc.h"

#include "tg/Support/Error.h"

#include <nvrtc.h>

#include <cstdlib>
#include <dlfcn.h>

namespace tg::rt {

namespace {

#define TG_NVRTC_FUNCTIONS(X) \
  X(nvrtcVersion)             \
  X(nvrtcGetErrorString)      \
  X(nvrtcCreateProgram)       \
  X(nvrtcDestroyProgram)      \
  X(nvrtcCompileProgram)      \
  X(nvrtcGetProgramLogSize)   \
  X(nvrtcGetProgramLog)       \
  X(nvrtcGetPTXSize)          \
  X(nvrtcGetPTX)              \
  X(nvrtcGetCUBINSize)        \
  X(nvrtcGetCUBIN)

struct NvrtcApi {
#define TG_DECLARE(name) decltype(&::name) name = nullptr;
  TG_NVRTC_FUNCTIONS(TG_DECLARE)
#undef TG_DECLARE
};

const NvrtcApi* loadNvrtc(std::string& reason) {
  static std::string failure;
  static const NvrtcApi* api = []() -> const NvrtcApi* {
    // The file nvrtcLibraryPath() finds first (its identity keys the remembered version),
    // then the dynamic loader's own search.
    std::vector<std::string> candidates;
    if (std::string path = nvrtcLibraryPath(); !path.empty()) candidates.push_back(path);
    candidates.push_back("libnvrtc.so.13");
    void* handle = nullptr;
    std::string errors;
    for (const std::string& path : candidates) {
      handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle) break;
      const char* e = dlerror();
      errors += "\n  " + path + ": " + (e ? e : "not found");
    }
    if (!handle) {
      failure = "NVRTC (libnvrtc.so.13, from the CUDA 13 toolkit) could not be loaded:" + errors;
      return nullptr;
    }
    auto* a = new NvrtcApi();
#define TG_RESOLVE(name)                                                       \
  a->name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name));         \
  if (!a->name) {                                                              \
    failure = "NVRTC lacks " #name;                                            \
    delete a;                                                                  \
    return nullptr;                                                            \
  }
    TG_NVRTC_FUNCTIONS(TG_RESOLVE)
#undef TG_RESOLVE
    return a;
  }();
  if (!api) reason = failure;
  return api;
}

const NvrtcApi& requireNvrtc() {
  std::string reason;
  const NvrtcApi* api = loadNvrtc(reason);
  if (!api) throw Error(reason);
  return *api;
}

}  // namespace

bool nvrtcAvailable(std::string* reason) {
  std::string r;
  bool ok = loadNvrtc(r) != nullptr;
  if (reason) *reason = r;
  return ok;
}

int nvrtcVersion() {
  const NvrtcApi& api = requireNvrtc();
  int major = 0, minor = 0;
  api.nvrtcVersion(&major, &minor);
  return major * 1000 + minor * 10;
}

NvrtcResult compileCuda(const std::string& source, const std::string& fileName,
                        const std::string& arch, const std::vector<std::string>& options) {
  const NvrtcApi& api = requireNvrtc();
  nvrtcProgram program;
  nvrtcResult r = api.nvrtcCreateProgram(&program, source.c_str(), fileName.c_str(), 0, nullptr,
                                         nullptr);
  if (r != NVRTC_SUCCESS)
    throw Error(std::string("nvrtcCreateProgram failed: ") + api.nvrtcGetErrorString(r));

  std::vector<std::string> all = {"--gpu-architecture=" + arch, "--std=c++17",
                                  "--device-as-default-execution-space"};
  all.insert(all.end(), options.begin(), options.end());
  std::vector<const char*> argv;
  for (const std::string& o : all) argv.push_back(o.c_str());
  nvrtcResult compiled = api.nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data());

  NvrtcResult result;
  size_t logSize = 0;
  api.nvrtcGetProgramLogSize(program, &logSize);
  if (logSize > 1) {
    result.log.resize(logSize);
    api.nvrtcGetProgramLog(program, result.log.data());
    result.log.resize(logSize - 1);  // drop the terminating NUL
  }
  if (compiled != NVRTC_SUCCESS) {
    api.nvrtcDestroyProgram(&program);
    throw Error("NVRTC could not compile " + fileName + " for " + arch + " (" +
                api.nvrtcGetErrorString(compiled) + "):\n" + result.log);
  }
  size_t size = 0;
  if (api.nvrtcGetPTXSize(program, &size) == NVRTC_SUCCESS && size > 1) {
    result.ptx.resize(size);
    api.nvrtcGetPTX(program, result.ptx.data());
    result.ptx.resize(size - 1);
  }
  if (arch.rfind("sm_", 0) == 0 && api.nvrtcGetCUBINSize(program, &size) == NVRTC_SUCCESS &&
      size > 0) {
    result.cubin.resize(size);
    api.nvrtcGetCUBIN(program, result.cubin.data());
  }
  api.nvrtcDestroyProgram(&program);
  return result;
}

}  // namespace tg::rt
