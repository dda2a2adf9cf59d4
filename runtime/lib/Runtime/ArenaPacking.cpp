//===- ArenaPacking.cpp - Temporaries packed into one arena by liveness ---===//
#include "tg/Runtime/ArenaPacking.h"

#include <algorithm>
#include <iterator>
#include <map>

namespace tg::rt {

namespace {

int64_t rounded(int64_t bytes) {
  return std::max<int64_t>(kArenaAlignment, (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment);
}

/// First-fit allocator over one growing arena.
class Arena {
 public:
  int64_t allocate(int64_t bytes) {
    bytes = rounded(bytes);
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second < bytes) continue;
      int64_t offset = it->first, size = it->second;
      free_.erase(it);
      if (size > bytes) free_[offset + bytes] = size - bytes;
      return offset;
    }
    // Grow, reusing a free block that ends at the top.
    int64_t offset = top_;
    if (!free_.empty()) {
      auto last = std::prev(free_.end());
      if (last->first + last->second == top_) {
        offset = last->first;
        free_.erase(last);
      }
    }
    top_ = offset + bytes;
    return offset;
  }
  void release(int64_t offset, int64_t bytes) {
    bytes = rounded(bytes);
    auto [it, inserted] = free_.emplace(offset, bytes);
    // Merge with the neighbours.
    if (auto next = std::next(it); next != free_.end() && it->first + it->second == next->first) {
      it->second += next->second;
      free_.erase(next);
    }
    if (it != free_.begin()) {
      auto prev = std::prev(it);
      if (prev->first + prev->second == it->first) {
        prev->second += it->second;
        free_.erase(it);
      }
    }
  }
  int64_t size() const { return top_; }

 private:
  std::map<int64_t, int64_t> free_;  // offset -> size
  int64_t top_ = 0;
};

}  // namespace

ArenaLayout packArena(std::span<const ArenaRequest> requests) {
  ArenaLayout layout;
  layout.offsets.resize(requests.size());
  Arena arena;
  std::vector<size_t> live;  // placed and not yet freed, in placement order
  for (size_t i = 0; i < requests.size(); ++i) {
    const int here = requests[i].first;
    for (auto it = live.begin(); it != live.end();) {
      if (requests[*it].last < here) {
        arena.release(layout.offsets[*it], requests[*it].bytes);
        it = live.erase(it);
      } else {
        ++it;
      }
    }
    layout.offsets[i] = arena.allocate(requests[i].bytes);
    live.push_back(i);
  }
  layout.bytes = arena.size();
  return layout;
}

}  // namespace tg::rt
