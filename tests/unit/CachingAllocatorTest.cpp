//===- CachingAllocatorTest.cpp - The device-memory reuse rules, on the CPU -===//
//
// The CachingAllocator over a DeviceMemory that records every driver call and hands out
// addresses from a budget, so the rules the GPU relies on (what is reused, in which order,
// what reaches the driver, what an out-of-memory error says) are checked without a GPU. The
// GPU suite runs the same allocator over the real driver.
//
//===----------------------------------------------------------------------===//
#include "tg/Runtime/CachingAllocator.h"
#include "tg/Support/Error.h"

#include <gtest/gtest.h>

#include <map>

namespace {

using tg::rt::CachingAllocator;
using tg::rt::DevicePtr;

/// Addresses from `capacity` bytes, never reused, so a reused address can only come from the
/// allocator. Frees are queued and return their bytes only at waitForFrees(), as stream-ordered
/// frees do.
class RecordingMemory final : public tg::rt::DeviceMemory {
 public:
  explicit RecordingMemory(size_t capacity) : capacity_(capacity) {}

  DevicePtr tryAllocate(size_t bytes) override {
    ++allocations;
    if (used_ + bytes > capacity_) {
      ++refusals;
      return 0;
    }
    used_ += bytes;
    const DevicePtr ptr = next_;
    next_ += bytes;
    live_[ptr] = bytes;
    return ptr;
  }
  void free(DevicePtr ptr) override {
    auto it = live_.find(ptr);
    ASSERT_NE(it, live_.end()) << "free of " << ptr << ", which the device did not hand out";
    pendingBytes_ += it->second;
    live_.erase(it);
    ++frees;
  }
  void waitForFrees() override {
    used_ -= pendingBytes_;
    pendingBytes_ = 0;
    ++waits;
  }
  std::string describeFree() override { return std::to_string(capacity_ - used_) + " free"; }

  size_t liveBytes() const {
    size_t n = 0;
    for (const auto& [ptr, bytes] : live_) n += bytes;
    return n;
  }

  int allocations = 0, refusals = 0, frees = 0, waits = 0;

 private:
  size_t capacity_, used_ = 0, pendingBytes_ = 0;
  DevicePtr next_ = 0x10000;
  std::map<DevicePtr, size_t> live_;
};

constexpr size_t kLarge = CachingAllocator::kSmallBytes + 4096;

TEST(CachingAllocator, SmallBuffersComeFromOneSlabAndTheLastReleasedIsReusedFirst) {
  RecordingMemory memory(size_t(1) << 30);
  CachingAllocator alloc(memory, /*caching=*/true);
  const DevicePtr a = alloc.allocate(100), b = alloc.allocate(512), c = alloc.allocate(513);
  EXPECT_EQ(memory.allocations, 1);  // one slab for all three
  EXPECT_EQ(b, a + CachingAllocator::kSmallAlign);
  EXPECT_EQ(c, b + CachingAllocator::kSmallAlign);  // 513 bytes take two steps
  alloc.release(a, 100);
  alloc.release(b, 512);
  EXPECT_EQ(alloc.allocate(300), b);  // same rounded size, the last released
  EXPECT_EQ(alloc.allocate(1), a);
  EXPECT_NE(alloc.allocate(1), a);  // the free list is empty again
  EXPECT_EQ(memory.frees, 0);       // small buffers never go back to the driver
  EXPECT_EQ(alloc.bytesFromDriver(), CachingAllocator::kSlabBytes);
}

TEST(CachingAllocator, ANewSlabWhenTheRestIsTooShort) {
  RecordingMemory memory(size_t(1) << 30);
  CachingAllocator alloc(memory, true);
  alloc.allocate(CachingAllocator::kSmallBytes);
  alloc.allocate(CachingAllocator::kSmallBytes);
  EXPECT_EQ(memory.allocations, 1);
  alloc.allocate(1);
  EXPECT_EQ(memory.allocations, 2);
  EXPECT_EQ(alloc.bytesFromDriver(), 2 * CachingAllocator::kSlabBytes);
}

TEST(CachingAllocator, LargeBuffersAreReusedOnlyAtTheirExactSize) {
  RecordingMemory memory(size_t(1) << 30);
  CachingAllocator alloc(memory, true);
  const DevicePtr a = alloc.allocate(kLarge), b = alloc.allocate(kLarge);
  alloc.release(a, kLarge);
  alloc.release(b, kLarge);
  EXPECT_EQ(memory.frees, 0);
  EXPECT_NE(alloc.allocate(kLarge + 1), a);  // never handed out larger than asked
  EXPECT_EQ(alloc.allocate(kLarge), b);      // the last released first
  EXPECT_EQ(alloc.allocate(kLarge), a);
  EXPECT_EQ(memory.allocations, 3);
}

TEST(CachingAllocator, AtMostKKeptBuffersAreKept) {
  RecordingMemory memory(size_t(1) << 34);
  CachingAllocator alloc(memory, true);
  std::vector<DevicePtr> ptrs;
  for (size_t i = 0; i <= CachingAllocator::kKeptBuffers; ++i) ptrs.push_back(alloc.allocate(kLarge + i));
  for (size_t i = 0; i < ptrs.size(); ++i) alloc.release(ptrs[i], kLarge + i);
  EXPECT_EQ(memory.frees, 1);  // the one past the bound went to the driver
  EXPECT_EQ(memory.liveBytes(), alloc.bytesFromDriver());
}

TEST(CachingAllocator, OutOfMemoryFreesTheKeptBuffersWaitsAndRetries) {
  RecordingMemory memory(3 * kLarge);
  CachingAllocator alloc(memory, true);
  const DevicePtr a = alloc.allocate(kLarge), b = alloc.allocate(kLarge);
  alloc.release(a, kLarge);
  alloc.release(b, kLarge);
  // 2 * kLarge + 8 fits only once the kept buffers are freed and the frees have executed.
  EXPECT_NE(alloc.allocate(2 * kLarge + 8), 0u);
  EXPECT_EQ(memory.refusals, 1);
  EXPECT_EQ(memory.frees, 2);
  EXPECT_EQ(memory.waits, 1);
  EXPECT_EQ(alloc.bytesFromDriver(), 2 * kLarge + 8);
}

TEST(CachingAllocator, OutOfMemoryNamesTheBytesAskedFor) {
  RecordingMemory memory(CachingAllocator::kSlabBytes / 2);
  CachingAllocator alloc(memory, true);
  try {
    alloc.allocate(kLarge);
    FAIL() << "no OutOfMemoryError";
  } catch (const tg::OutOfMemoryError& e) {
    EXPECT_NE(std::string(e.what()).find("asked for " + std::to_string(kLarge) + " bytes"), std::string::npos)
        << e.what();
  }
  // A small buffer when not even a slab fits: the buffer alone, and it is reused.
  const DevicePtr small = alloc.allocate(1000);
  EXPECT_EQ(alloc.bytesFromDriver(), 1024u);
  alloc.release(small, 1000);
  EXPECT_EQ(alloc.allocate(1000), small);
  // ... and the error names what the caller asked for, not the slab.
  RecordingMemory tiny(100);
  CachingAllocator none(tiny, true);
  try {
    none.allocate(1000);
    FAIL() << "no OutOfMemoryError";
  } catch (const tg::OutOfMemoryError& e) {
    EXPECT_NE(std::string(e.what()).find("asked for 1000 bytes"), std::string::npos) << e.what();
  }
}

TEST(CachingAllocator, WithoutCachingEveryCallReachesTheDriver) {
  RecordingMemory memory(size_t(1) << 30);
  CachingAllocator alloc(memory, /*caching=*/false);
  const DevicePtr a = alloc.allocate(100);
  alloc.release(a, 100);
  const DevicePtr b = alloc.allocate(kLarge);
  alloc.release(b, kLarge);
  EXPECT_EQ(memory.allocations, 2);
  EXPECT_EQ(memory.frees, 2);
  EXPECT_EQ(alloc.bytesFromDriver(), 0u);
  EXPECT_EQ(memory.liveBytes(), 0u);
}

TEST(CachingAllocator, ReleaseAllReturnsEverythingAndLaterReleasesGoToTheDriver) {
  RecordingMemory memory(size_t(1) << 30);
  CachingAllocator alloc(memory, true);
  const DevicePtr small = alloc.allocate(100), kept = alloc.allocate(kLarge), live = alloc.allocate(kLarge);
  const DevicePtr liveSmall = alloc.allocate(200);
  alloc.release(small, 100);
  alloc.release(kept, kLarge);
  alloc.releaseAll();
  EXPECT_EQ(memory.liveBytes(), kLarge);  // only the live large buffer is left
  alloc.release(live, kLarge);            // straight to the driver
  alloc.release(liveSmall, 200);          // its slab is gone: to nobody
  EXPECT_EQ(memory.liveBytes(), 0u);
  EXPECT_EQ(alloc.bytesFromDriver(), 0u);
}

}  // namespace
