//===- ArenaPackingTest.cpp - Temporaries packed into one arena by liveness ===//
//
// rt::packArena (runtime/include/tg/Runtime/ArenaPacking.h), which tg-assign-buffers uses at
// compile time and the runtime will use again when sizes are known only at a call.
//
//===----------------------------------------------------------------------===//
#include "tg/Runtime/ArenaPacking.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

using tg::rt::ArenaRequest;
using tg::rt::packArena;

TEST(ArenaPacking, ASliceIsReusedAfterItsLastReader) {
  // t0 read by position 1, t1 read by 2, t2 made at 2: t0's bytes are free again there.
  const std::vector<ArenaRequest> r = {{4096, 0, 1}, {4096, 1, 2}, {4096, 2, 3}};
  const tg::rt::ArenaLayout a = packArena(r);
  EXPECT_EQ(a.offsets, (std::vector<int64_t>{0, 4096, 0}));
  EXPECT_EQ(a.bytes, 8192);
}

TEST(ArenaPacking, SlicesAreAlignedAndAtLeastTheAlignment) {
  const std::vector<ArenaRequest> r = {{1, 0, 5}, {300, 1, 5}, {0, 2, 5}};
  const tg::rt::ArenaLayout a = packArena(r);
  EXPECT_EQ(a.offsets, (std::vector<int64_t>{0, 256, 768}));
  EXPECT_EQ(a.bytes, 1024);
}

TEST(ArenaPacking, UnreadTemporariesFreeAtOnceAndTheArenaGrowsIntoAFreeTop) {
  // t0 (unread) frees before t1; t1 needs more than t0 had, so it grows from t0's offset.
  const std::vector<ArenaRequest> r = {{256, 0, 0}, {1024, 1, 3}, {512, 2, 3}};
  const tg::rt::ArenaLayout a = packArena(r);
  EXPECT_EQ(a.offsets, (std::vector<int64_t>{0, 0, 1024}));
  EXPECT_EQ(a.bytes, 1536);
}

TEST(ArenaPacking, FirstFitTakesTheLowestBlockThatHolds) {
  // Free holes of 256 at 0 and 1024 at 512 after position 2; a 512-byte slice takes the second.
  const std::vector<ArenaRequest> r = {{256, 0, 1}, {256, 0, 9}, {1024, 0, 1}, {256, 0, 9}, {512, 2, 9}, {128, 3, 9}};
  const tg::rt::ArenaLayout a = packArena(r);
  EXPECT_EQ(a.offsets, (std::vector<int64_t>{0, 256, 512, 1536, 512, 0}));
  EXPECT_EQ(a.bytes, 1792);
}

}  // namespace
