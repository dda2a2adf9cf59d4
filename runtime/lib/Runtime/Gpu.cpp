//===- Gpu.cpp - Context, stream, memory and launches over the driver API -===//
#include "tg/Runtime/Gpu.h"

#include "CudaDriver.h"
#include "tg/Runtime/CheckFlag.h"
#include "tg/Support/Error.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>

namespace tg::rt {

namespace {

std::string& reasonStorage() {
  static std::string reason;
  return reason;
}

const CudaDriver& driverOf(const void* p) { return *static_cast<const CudaDriver*>(p); }

constexpr size_t kStagingBytes = 32u << 20;

/// The CachingAllocator's device: stream-ordered allocations on tg's stream.
class DriverMemory final : public DeviceMemory {
 public:
  DriverMemory(const CudaDriver& driver, CUstream stream, size_t totalMemory)
      : d_(driver), stream_(stream), totalMemory_(totalMemory) {}

  DevicePtr tryAllocate(size_t bytes) override {
    CUdeviceptr ptr = 0;
    const CUresult r = d_.cuMemAllocAsync(&ptr, bytes, stream_);
    if (r == CUDA_SUCCESS) return ptr;
    // A request beyond the whole device may be refused with another code than out-of-memory;
    // to the caller it is the same failure.
    if (r == CUDA_ERROR_OUT_OF_MEMORY || bytes > totalMemory_) return 0;
    throw Error("cuMemAllocAsync failed: " + cudaErrorText(d_, r));
  }
  // Errors here (e.g. at process exit, after the driver shut down) cannot be reported.
  void free(DevicePtr ptr) override { d_.cuMemFreeAsync(ptr, stream_); }
  void waitForFrees() override { d_.cuStreamSynchronize(stream_); }
  std::string describeFree() override {
    size_t freeBytes = 0, total = 0;
    d_.cuMemGetInfo(&freeBytes, &total);
    return std::to_string(freeBytes) + " of " + std::to_string(total) + " free";
  }

 private:
  const CudaDriver& d_;
  CUstream stream_;
  size_t totalMemory_;
};

}  // namespace

std::string DeviceInfo::arch() const {
  std::string a = "sm_" + std::to_string(ccMajor) + std::to_string(ccMinor);
  if (ccMajor == 9 && ccMinor == 0) a += "a";
  return a;
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) gpu_->release(ptr_, bytes_);
}

Module::~Module() { gpu_->unload(handle_); }

void* Module::function(const std::string& name) const {
  const CudaDriver& d = driverOf(gpu_->driver_);
  CUfunction f = nullptr;
  CUresult r = d.cuModuleGetFunction(&f, static_cast<CUmodule>(handle_), name.c_str());
  if (r != CUDA_SUCCESS)
    throw Error("kernel '" + name + "' not found in its module: " + cudaErrorText(d, r));
  return f;
}

const std::string& Gpu::unavailableReason() {
  Gpu::get();
  return reasonStorage();
}

Gpu* Gpu::get() {
  static Gpu* gpu = []() -> Gpu* {
    if (const char* off = std::getenv("TG_DISABLE_CUDA"); off && *off && std::string(off) != "0") {
      reasonStorage() = "CUDA disabled by TG_DISABLE_CUDA";
      return nullptr;
    }
    std::string reason;
    const CudaDriver* d = CudaDriver::load(reason);
    if (!d) {
      reasonStorage() = reason;
      return nullptr;
    }
    auto fail = [&](CUresult r, const char* what) -> Gpu* {
      reasonStorage() = std::string(what) + " failed: " + cudaErrorText(*d, r);
      return nullptr;
    };
    CUresult r = d->cuInit(0);
    if (r != CUDA_SUCCESS) return fail(r, "cuInit");
    int count = 0;
    r = d->cuDeviceGetCount(&count);
    if (r != CUDA_SUCCESS) return fail(r, "cuDeviceGetCount");
    if (count == 0) {
      reasonStorage() = "the CUDA driver found no GPU";
      return nullptr;
    }
    CUdevice dev;
    if ((r = d->cuDeviceGet(&dev, 0)) != CUDA_SUCCESS) return fail(r, "cuDeviceGet");
    auto* g = new Gpu();
    g->driver_ = d;
    char name[256] = {};
    d->cuDeviceGetName(name, sizeof(name), dev);
    g->info_.name = name;
    auto attr = [&](CUdevice_attribute a) {
      int v = 0;
      d->cuDeviceGetAttribute(&v, a, dev);
      return v;
    };
    g->info_.ccMajor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    g->info_.ccMinor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    g->info_.smCount = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    g->info_.sharedMemPerBlockOptin = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    g->info_.l2Bytes = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    d->cuDeviceTotalMem(&g->info_.totalMemory, dev);
    d->cuDriverGetVersion(&g->info_.driverVersion);

    CUcontext ctx;
    if ((r = d->cuDevicePrimaryCtxRetain(&ctx, dev)) != CUDA_SUCCESS)
      return fail(r, "cuDevicePrimaryCtxRetain");
    if ((r = d->cuCtxSetCurrent(ctx)) != CUDA_SUCCESS) return fail(r, "cuCtxSetCurrent");
    g->context_ = ctx;
    CUstream stream;
    if ((r = d->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
      return fail(r, "cuStreamCreate");
    g->stream_ = stream;
    bool caching = true;
    if (const char* v = std::getenv("TG_NO_MEMORY_CACHING"); v && *v && std::string(v) != "0")
      caching = false;
    g->memory_ = std::make_unique<DriverMemory>(*d, stream, g->info_.totalMemory);
    g->allocator_ = std::make_unique<CachingAllocator>(*g->memory_, caching);
    // Keep freed memory in the pool: allocations on the hot path then never reach the OS.
    CUmemoryPool pool;
    if (d->cuDeviceGetDefaultMemPool(&pool, dev) == CUDA_SUCCESS) {
      cuuint64_t threshold = UINT64_MAX;
      d->cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold);
    }
    // After the driver's own exit handler (registered by cuInit), so this one runs first.
    static Gpu* opened = g;
    std::atexit([] { opened->releaseProcessResources(); });
    return g;
  }();
  if (gpu) {
    // Each host thread that uses tg needs the context current.
    thread_local bool current = false;
    if (!current) {
      driverOf(gpu->driver_).cuCtxSetCurrent(static_cast<CUcontext>(gpu->context_));
      current = true;
    }
  }
  return gpu;
}

void Gpu::check(int result, const char* what) {
  if (result != CUDA_SUCCESS)
    throw Error(std::string(what) + " failed: " +
                cudaErrorText(driverOf(driver_), static_cast<CUresult>(result)));
}

std::shared_ptr<DeviceBuffer> Gpu::allocate(size_t bytes) {
  return std::make_shared<DeviceBuffer>(this, bytes ? allocator_->allocate(bytes) : 0, bytes);
}

void Gpu::releaseProcessResources() {
  const CudaDriver& d = driverOf(driver_);
  CUstream s = static_cast<CUstream>(stream_);
  d.cuStreamSynchronize(s);  // nothing queued may still use what is freed (errors: exit anyway)
  CheckFlag::instance().release();
  allocator_->releaseAll();
  if (staging_) {
    d.cuEventSynchronize(static_cast<CUevent>(stagingFree_));
    d.cuEventDestroy(static_cast<CUevent>(stagingFree_));
    d.cuMemFreeHost(staging_);
    staging_ = stagingFree_ = nullptr;
    stagingBytes_ = 0;
  }
  d.cuStreamSynchronize(s);
}

std::pair<size_t, size_t> Gpu::memoryInfo() {
  size_t freeBytes = 0, total = 0;
  driverOf(driver_).cuMemGetInfo(&freeBytes, &total);
  return {freeBytes, total};
}

void Gpu::copyStaged(DevicePtr device, void* host, size_t bytes, bool toDevice) {
  const CudaDriver& d = driverOf(driver_);
  CUstream s = static_cast<CUstream>(stream_);
  if (!staging_) {
    check(d.cuMemHostAlloc(&staging_, kStagingBytes, 0), "cuMemHostAlloc (staging)");
    stagingBytes_ = kStagingBytes;
    CUevent e;
    check(d.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    stagingFree_ = e;
  }
  CUevent free = static_cast<CUevent>(stagingFree_);
  auto* bytesPtr = static_cast<char*>(host);
  for (size_t offset = 0; offset < bytes; offset += stagingBytes_) {
    size_t chunk = std::min(stagingBytes_, bytes - offset);
    check(d.cuEventSynchronize(free), "cuEventSynchronize");  // staging reusable
    if (toDevice) {
      std::memcpy(staging_, bytesPtr + offset, chunk);
      check(d.cuMemcpyHtoDAsync(device + offset, staging_, chunk, s), "cuMemcpyHtoDAsync");
      check(d.cuEventRecord(free, s), "cuEventRecord");
    } else {
      check(d.cuMemcpyDtoHAsync(staging_, device + offset, chunk, s), "cuMemcpyDtoHAsync");
      check(d.cuStreamSynchronize(s), "cuStreamSynchronize (device to host copy)");
      std::memcpy(bytesPtr + offset, staging_, chunk);
    }
  }
}

void Gpu::copyToDevice(DevicePtr dst, const void* src, size_t bytes) {
  if (bytes) copyStaged(dst, const_cast<void*>(src), bytes, /*toDevice=*/true);
}

void Gpu::copyToHost(void* dst, DevicePtr src, size_t bytes) {
  if (bytes)
    copyStaged(src, dst, bytes, /*toDevice=*/false);
  else
    synchronize();
}

void Gpu::copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes) {
  if (bytes)
    check(driverOf(driver_).cuMemcpyDtoDAsync(dst, src, bytes, static_cast<CUstream>(stream_)),
          "cuMemcpyDtoDAsync");
}

void Gpu::fill(DevicePtr dst, uint32_t pattern, size_t elementBytes, size_t count) {
  if (!count) return;
  const CudaDriver& d = driverOf(driver_);
  CUstream s = static_cast<CUstream>(stream_);
  switch (elementBytes) {
    case 1:
      return check(d.cuMemsetD8Async(dst, static_cast<unsigned char>(pattern), count, s),
                   "cuMemsetD8Async");
    case 2:
      return check(d.cuMemsetD16Async(dst, static_cast<unsigned short>(pattern), count, s),
                   "cuMemsetD16Async");
    case 4:
      return check(d.cuMemsetD32Async(dst, pattern, count, s), "cuMemsetD32Async");
  }
  throw Error("fill: elements of " + std::to_string(elementBytes) + " bytes are not supported");
}

void Gpu::synchronize() {
  check(driverOf(driver_).cuStreamSynchronize(static_cast<CUstream>(stream_)),
        "cuStreamSynchronize");
}

std::unique_ptr<Module> Gpu::load(const std::string& cubin) {
  CUmodule m = nullptr;
  check(driverOf(driver_).cuModuleLoadData(&m, cubin.data()), "cuModuleLoadData");
  return std::unique_ptr<Module>(new Module(this, m));
}

void Gpu::unload(void* module) { driverOf(driver_).cuModuleUnload(static_cast<CUmodule>(module)); }

void Gpu::setMaxDynamicShared(void* function, uint32_t bytes) {
  check(driverOf(driver_).cuFuncSetAttribute(static_cast<CUfunction>(function),
                                             CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                             static_cast<int>(bytes)),
        "cuFuncSetAttribute(max dynamic shared memory)");
}

void Gpu::encodeTensorMap(TensorMapBytes& out, const TensorMapSpec& spec, DevicePtr base) {
  static_assert(sizeof(TensorMapBytes) == sizeof(CUtensorMap), "CUtensorMap is 128 bytes");
  CUtensorMapDataType type = spec.type == TensorMapSpec::Type::BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                             : spec.type == TensorMapSpec::Type::F16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                             : spec.type == TensorMapSpec::Type::TF32 ? CU_TENSOR_MAP_DATA_TYPE_TFLOAT32
                                                                      : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  cuuint64_t dims[3], strides[2];
  cuuint32_t box[3], elementStrides[3] = {1, 1, 1};
  for (uint32_t d = 0; d < spec.rank; ++d) {
    dims[d] = spec.dims[d];
    box[d] = spec.box[d];
    if (d > 0) strides[d - 1] = spec.strides[d - 1];
  }
  CUresult r = driverOf(driver_).cuTensorMapEncodeTiled(
      reinterpret_cast<CUtensorMap*>(&out), type, spec.rank, reinterpret_cast<void*>(base + spec.byteOffset), dims,
      strides, box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
      spec.swizzle128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::ostringstream what;
    what << "the GPU cannot describe a matmul operand for TMA: cuTensorMapEncodeTiled(rank "
         << spec.rank << ", dims";
    for (uint32_t d = 0; d < spec.rank; ++d) what << ' ' << spec.dims[d];
    what << ", box";
    for (uint32_t d = 0; d < spec.rank; ++d) what << ' ' << spec.box[d];
    what << ", base " << base << " + " << spec.byteOffset << "): " << cudaErrorText(driverOf(driver_), r);
    throw Error(what.str());
  }
}

void Gpu::launch(void* function, const LaunchDims& dims, void** args) {
  check(driverOf(driver_).cuLaunchKernel(static_cast<CUfunction>(function), dims.grid[0],
                                         dims.grid[1], dims.grid[2], dims.block[0], dims.block[1],
                                         dims.block[2], dims.sharedBytes,
                                         static_cast<CUstream>(stream_), args, nullptr),
        "cuLaunchKernel");
}

void Gpu::launchProgrammatic(void* function, const LaunchDims& dims, void** args) {
  CUlaunchAttribute attribute{};
  attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attribute.value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig config{};
  setLaunchDims(config, dims);
  config.hStream = static_cast<CUstream>(stream_);
  config.attrs = &attribute;
  config.numAttrs = 1;
  check(driverOf(driver_).cuLaunchKernelEx(&config, static_cast<CUfunction>(function), args, nullptr),
        "cuLaunchKernelEx");
}

void* Gpu::createEvent() {
  CUevent e;
  check(driverOf(driver_).cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
  return e;
}

void Gpu::destroyEvent(void* event) { driverOf(driver_).cuEventDestroy(static_cast<CUevent>(event)); }

void Gpu::recordEvent(void* event) {
  check(driverOf(driver_).cuEventRecord(static_cast<CUevent>(event),
                                        static_cast<CUstream>(stream_)),
        "cuEventRecord");
}

float Gpu::elapsedMs(void* start, void* end) {
  const CudaDriver& d = driverOf(driver_);
  check(d.cuEventSynchronize(static_cast<CUevent>(end)), "cuEventSynchronize");
  float ms = 0;
  check(d.cuEventElapsedTime(&ms, static_cast<CUevent>(start), static_cast<CUevent>(end)),
        "cuEventElapsedTime");
  return ms;
}

}  // namespace tg::rt
