//===- CudaDriver.h - The CUDA driver API, resolved with dlopen (internal) ===//
//
// tg never links libcuda: binaries must start on machines without a GPU. The driver is opened
// with dlopen("libcuda.so.1") on first use and every entry point is resolved by the name its
// cuda.h macro expands to (cuMemAlloc -> cuMemAlloc_v2, ...), so the ABI matches the header.
// Only runtime/lib includes this file (and cuda.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Runtime/KernelAbi.h"

#include <cuda.h>

#include <string>

namespace tg::rt {

#define TG_CUDA_DRIVER_FUNCTIONS(X) \
  X(cuInit)                         \
  X(cuDriverGetVersion)             \
  X(cuGetErrorName)                 \
  X(cuGetErrorString)               \
  X(cuDeviceGetCount)               \
  X(cuDeviceGet)                    \
  X(cuDeviceGetName)                \
  X(cuDeviceGetAttribute)           \
  X(cuDeviceTotalMem)               \
  X(cuDevicePrimaryCtxRetain)       \
  X(cuDevicePrimaryCtxRelease)      \
  X(cuCtxSetCurrent)                \
  X(cuCtxSynchronize)               \
  X(cuStreamCreate)                 \
  X(cuStreamDestroy)                \
  X(cuStreamSynchronize)            \
  X(cuStreamWaitEvent)              \
  X(cuEventCreate)                  \
  X(cuEventDestroy)                 \
  X(cuEventRecord)                  \
  X(cuEventSynchronize)             \
  X(cuEventQuery)                   \
  X(cuEventElapsedTime)             \
  X(cuDeviceGetDefaultMemPool)      \
  X(cuMemPoolSetAttribute)          \
  X(cuMemAllocAsync)                \
  X(cuMemFreeAsync)                 \
  X(cuMemGetInfo)                   \
  X(cuMemHostAlloc)                 \
  X(cuMemFreeHost)                  \
  X(cuMemcpyHtoDAsync)              \
  X(cuMemcpyDtoHAsync)              \
  X(cuMemcpyDtoDAsync)              \
  X(cuMemsetD8Async)                \
  X(cuMemsetD16Async)               \
  X(cuMemsetD32Async)               \
  X(cuModuleLoadData)               \
  X(cuModuleUnload)                 \
  X(cuModuleGetFunction)            \
  X(cuFuncSetAttribute)             \
  X(cuFuncGetAttribute)             \
  X(cuGraphCreate)                  \
  X(cuGraphDestroy)                 \
  X(cuGraphAddKernelNode)           \
  X(cuGraphAddDependencies)         \
  X(cuGraphInstantiate)             \
  X(cuGraphExecDestroy)             \
  X(cuGraphExecKernelNodeSetParams) \
  X(cuGraphLaunch)                  \
  X(cuLaunchKernel)                 \
  X(cuLaunchKernelEx)               \
  X(cuTensorMapEncodeTiled)

/// Function pointers for the driver entry points tg uses.
struct CudaDriver {
#define TG_DECLARE(name) decltype(&::name) name = nullptr;
  TG_CUDA_DRIVER_FUNCTIONS(TG_DECLARE)
#undef TG_DECLARE

  /// Opens libcuda.so.1 and resolves every entry point. Returns null (and sets `reason`) when
  /// the library or a symbol is missing. The result lives for the whole process.
  static const CudaDriver* load(std::string& reason);
};

/// Copies `dims` into a driver launch description (CUDA_KERNEL_NODE_PARAMS, CUlaunchConfig:
/// the same field names).
template <class Launch>
void setLaunchDims(Launch& launch, const LaunchDims& dims) {
  launch.gridDimX = dims.grid[0];
  launch.gridDimY = dims.grid[1];
  launch.gridDimZ = dims.grid[2];
  launch.blockDimX = dims.block[0];
  launch.blockDimY = dims.block[1];
  launch.blockDimZ = dims.block[2];
  launch.sharedMemBytes = dims.sharedBytes;
}

/// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
std::string cudaErrorText(const CudaDriver& driver, CUresult result);

}  // namespace tg::rt
