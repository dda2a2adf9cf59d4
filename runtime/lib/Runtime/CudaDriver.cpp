//===- CudaDriver.cpp - dlopen of libcuda.so.1 ----------------------------===//
#include "CudaDriver.h"

#include <dlfcn.h>

namespace tg::rt {

// Two-level stringification: expands cuda.h's macros first (cuMemAlloc -> cuMemAlloc_v2).
#define TG_STR(x) #x
#define TG_XSTR(x) TG_STR(x)

const CudaDriver* CudaDriver::load(std::string& reason) {
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    reason = "the CUDA driver (libcuda.so.1) could not be loaded: ";
    const char* err = dlerror();
    reason += err ? err : "unknown dlopen error";
    return nullptr;
  }
  auto* driver = new CudaDriver();
#define TG_RESOLVE(name)                                                           \
  driver->name = reinterpret_cast<decltype(&::name)>(dlsym(handle, TG_XSTR(name))); \
  if (!driver->name) {                                                             \
    reason = "the CUDA driver lacks " TG_XSTR(name) " (driver too old?)";          \
    delete driver;                                                                 \
    return nullptr;                                                                \
  }
  TG_CUDA_DRIVER_FUNCTIONS(TG_RESOLVE)
#undef TG_RESOLVE
  return driver;
}

std::string cudaErrorText(const CudaDriver& driver, CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  driver.cuGetErrorName(result, &name);
  driver.cuGetErrorString(result, &text);
  std::string s = name ? name : ("CUDA error " + std::to_string(static_cast<int>(result)));
  if (text) s += std::string(" (") + text + ")";
  return s;
}

}  // namespace tg::rt
