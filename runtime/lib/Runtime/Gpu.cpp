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
    if (const char* v = std::getenv("TG_NO_MEMORY_CACHING"); v && *v && std::string(v) != "0")
      g->caching_ = false;
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

namespace {
size_t roundSmall(size_t bytes) { return (bytes + Gpu::kSmallAlign - 1) / Gpu::kSmallAlign * Gpu::kSmallAlign; }
}  // namespace

std::shared_ptr<DeviceBuffer> Gpu::allocate(size_t bytes) {
  if (bytes == 0) return std::make_shared<DeviceBuffer>(this, 0, 0);
  DevicePtr ptr = 0;
  if (!caching_)
    ptr = driverAllocate(bytes);
  else if (bytes <= kSmallBytes)
    ptr = takeSmall(bytes);
  else if (!(ptr = takeKept(bytes)))
    ptr = driverAllocate(bytes);
  return std::make_shared<DeviceBuffer>(this, ptr, bytes);
}

DevicePtr Gpu::takeSmall(size_t bytes) {
  const size_t size = roundSmall(bytes);
  {
    std::lock_guard<std::mutex> lock(keptMutex_);
    if (auto it = smallFree_.find(size); it != smallFree_.end() && !it->second.empty()) {
      const DevicePtr ptr = it->second.back();
      it->second.pop_back();
      return ptr;
    }
    if (slabEnd_ - slabNext_ >= size) {
      const DevicePtr ptr = slabNext_;
      slabNext_ += size;
      return ptr;
    }
  }
  // A new slab (outside the lock: the driver call may wait for the stream). The old slab's
  // rest stays unused. When not even a slab fits, this buffer alone: it joins the free lists
  // all the same, and an out-of-memory error then names the bytes the caller asked for.
  DevicePtr slab = 0;
  try {
    slab = driverAllocate(kSlabBytes);
  } catch (const OutOfMemoryError&) {
    const DevicePtr alone = driverAllocate(size, bytes);
    std::lock_guard<std::mutex> lock(keptMutex_);
    slabs_.push_back({alone, size});
    return alone;
  }
  std::lock_guard<std::mutex> lock(keptMutex_);
  slabs_.push_back({slab, kSlabBytes});
  slabNext_ = slab + size;
  slabEnd_ = slab + kSlabBytes;
  return slab;
}

DevicePtr Gpu::takeKept(size_t bytes) {
  std::lock_guard<std::mutex> lock(keptMutex_);
  for (size_t i = kept_.size(); i-- > 0;)
    if (kept_[i].bytes == bytes) {
      const DevicePtr ptr = kept_[i].ptr;
      kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(i));
      return ptr;
    }
  return 0;
}

DevicePtr Gpu::driverAllocate(size_t bytes, size_t asked) {
  if (asked == 0) asked = bytes;
  const CudaDriver& d = driverOf(driver_);
  CUdeviceptr ptr = 0;
  CUstream s = static_cast<CUstream>(stream_);
  CUresult r = d.cuMemAllocAsync(&ptr, bytes, s);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) {
    // Kept buffers and frees queued on the stream return memory only once those frees execute:
    // free, wait, then retry.
    freeKept();
    d.cuStreamSynchronize(s);
    r = d.cuMemAllocAsync(&ptr, bytes, s);
  }
  // A request beyond the whole device may be refused with another code than out-of-memory; to
  // the caller it is the same failure.
  if (r == CUDA_ERROR_OUT_OF_MEMORY || (r != CUDA_SUCCESS && bytes > info_.totalMemory)) {
    auto [freeBytes, total] = memoryInfo();
    throw OutOfMemoryError("out of device memory: asked for " + std::to_string(asked) +
                           " bytes, " + std::to_string(freeBytes) + " of " +
                           std::to_string(total) + " free");
  }
  check(r, "cuMemAllocAsync");
  driverBytes_.fetch_add(bytes, std::memory_order_relaxed);
  return ptr;
}

void Gpu::release(DevicePtr ptr, size_t bytes) {
  if (caching_) {
    std::lock_guard<std::mutex> lock(keptMutex_);
    if (bytes <= kSmallBytes) {  // slab memory never goes back to the driver
      if (released_) return;     // ... but at exit, all of it did
      smallFree_[roundSmall(bytes)].push_back(ptr);
      return;
    }
    if (kept_.size() < kKeptBuffers && !released_) {
      if (kept_.capacity() < kKeptBuffers) kept_.reserve(kKeptBuffers);
      kept_.push_back({ptr, bytes});
      return;
    }
  }
  // Errors here (e.g. at process exit, after the driver shut down) cannot be reported.
  driverOf(driver_).cuMemFreeAsync(ptr, static_cast<CUstream>(stream_));
  driverBytes_.fetch_sub(bytes, std::memory_order_relaxed);
}

void Gpu::freeKept() {
  std::vector<Kept> kept;
  {
    std::lock_guard<std::mutex> lock(keptMutex_);
    kept.swap(kept_);
  }
  for (const Kept& k : kept) {
    driverOf(driver_).cuMemFreeAsync(k.ptr, static_cast<CUstream>(stream_));
    driverBytes_.fetch_sub(k.bytes, std::memory_order_relaxed);
  }
}

void Gpu::releaseProcessResources() {
  const CudaDriver& d = driverOf(driver_);
  CUstream s = static_cast<CUstream>(stream_);
  d.cuStreamSynchronize(s);  // nothing queued may still use what is freed (errors: exit anyway)
  CheckFlag::instance().release();
  freeKept();
  std::vector<std::pair<DevicePtr, size_t>> slabs;
  {
    std::lock_guard<std::mutex> lock(keptMutex_);
    released_ = true;
    slabs.swap(slabs_);
    smallFree_.clear();
    slabNext_ = slabEnd_ = 0;
  }
  for (auto [slab, bytes] : slabs) {
    d.cuMemFreeAsync(slab, s);
    driverBytes_.fetch_sub(bytes, std::memory_order_relaxed);
  }
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
      reinterpret_cast<CUtensorMap*>(&out), type, spec.rank, reinterpret_cast<void*>(base), dims,
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
    what << ", base " << base << "): " << cudaErrorText(driverOf(driver_), r);
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
