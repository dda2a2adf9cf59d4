//===- ArenaPacking.h - Temporaries packed into one arena by liveness -----===//
//
// A program's temporaries share one per-call arena: each is made at one program position and
// last read at another, and temporaries whose lifetimes do not overlap take the same bytes.
// The packing is first-fit in program order, slices freed after their last reader. Plain
// data in and out: tg-assign-buffers packs at compile time, and the runtime can pack again
// when a program's sizes are only known at a call (dynamic dims). No MLIR, no CUDA.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace tg::rt {

/// Slices start at multiples of this many bytes (every vector access and TMA base stays
/// aligned), and take at least this much.
inline constexpr int64_t kArenaAlignment = 256;

/// One temporary: its bytes, the program position that makes it and the last one that reads
/// it (last >= first; a temporary nobody reads has last == first).
struct ArenaRequest {
  int64_t bytes = 0;
  int first = 0;
  int last = 0;
};

struct ArenaLayout {
  std::vector<int64_t> offsets;  ///< one per request, in bytes from the arena's start
  int64_t bytes = 0;             ///< the arena's size
};

/// Packs `requests`, which must be in program order (ascending `first`): before a request is
/// placed, the slices whose last reader ran before its position are freed (in the order they
/// were placed); it then takes the lowest free block that holds it, or grows the arena (into a
/// free block at the top, if any).
ArenaLayout packArena(std::span<const ArenaRequest> requests);

}  // namespace tg::rt
