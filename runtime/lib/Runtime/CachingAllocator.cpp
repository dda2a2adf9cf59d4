//===- CachingAllocator.cpp - Slabs for small buffers, kept large ones ----===//
#include "tg/Runtime/CachingAllocator.h"

#include "tg/Support/Error.h"

namespace tg::rt {

namespace {
size_t roundSmall(size_t bytes) {
  return (bytes + CachingAllocator::kSmallAlign - 1) / CachingAllocator::kSmallAlign *
         CachingAllocator::kSmallAlign;
}
}  // namespace

DevicePtr CachingAllocator::allocate(size_t bytes) {
  if (!caching_) return fromDriver(bytes, bytes);
  if (bytes <= kSmallBytes) return takeSmall(bytes);
  if (DevicePtr ptr = takeKept(bytes)) return ptr;
  return fromDriver(bytes, bytes);
}

DevicePtr CachingAllocator::takeSmall(size_t bytes) {
  const size_t size = roundSmall(bytes);
  {
    std::lock_guard<std::mutex> lock(mutex_);
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
    slab = fromDriver(kSlabBytes, bytes);
  } catch (const OutOfMemoryError&) {
    const DevicePtr alone = fromDriver(size, bytes);
    std::lock_guard<std::mutex> lock(mutex_);
    slabs_.push_back({alone, size});
    return alone;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  slabs_.push_back({slab, kSlabBytes});
  slabNext_ = slab + size;
  slabEnd_ = slab + kSlabBytes;
  return slab;
}

DevicePtr CachingAllocator::takeKept(size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = kept_.size(); i-- > 0;)
    if (kept_[i].bytes == bytes) {
      const DevicePtr ptr = kept_[i].ptr;
      kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(i));
      return ptr;
    }
  return 0;
}

DevicePtr CachingAllocator::fromDriver(size_t bytes, size_t asked) {
  DevicePtr ptr = memory_.tryAllocate(bytes);
  if (!ptr) {
    // Kept buffers and queued frees return memory only once those frees execute: free, wait,
    // then retry.
    freeKept();
    memory_.waitForFrees();
    ptr = memory_.tryAllocate(bytes);
  }
  if (!ptr)
    throw OutOfMemoryError("out of device memory: asked for " + std::to_string(asked) +
                           " bytes, " + memory_.describeFree());
  driverBytes_.fetch_add(bytes, std::memory_order_relaxed);
  return ptr;
}

void CachingAllocator::toDriver(DevicePtr ptr, size_t bytes) {
  memory_.free(ptr);
  driverBytes_.fetch_sub(bytes, std::memory_order_relaxed);
}

void CachingAllocator::release(DevicePtr ptr, size_t bytes) {
  if (caching_) {
    std::lock_guard<std::mutex> lock(mutex_);
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
  toDriver(ptr, bytes);
}

void CachingAllocator::freeKept() {
  std::vector<Kept> kept;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    kept.swap(kept_);
  }
  for (const Kept& k : kept) toDriver(k.ptr, k.bytes);
}

void CachingAllocator::releaseAll() {
  freeKept();
  std::vector<std::pair<DevicePtr, size_t>> slabs;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    released_ = true;
    slabs.swap(slabs_);
    smallFree_.clear();
    slabNext_ = slabEnd_ = 0;
  }
  for (auto [slab, bytes] : slabs) toDriver(slab, bytes);
}

}  // namespace tg::rt
