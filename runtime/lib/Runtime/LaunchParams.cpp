//===- LaunchParams.cpp - Layout of the launches' parameter blocks ---------===//
#include "tg/Runtime/LaunchParams.h"

#include <cstring>
#include <new>

namespace tg::rt {

void LaunchParams::AlignedFree::operator()(std::byte* p) const {
  ::operator delete[](p, std::align_val_t(kAlignment));
}

LaunchParams::LaunchParams(const std::vector<std::vector<size_t>>& sizes) {
  auto alignUp = [](size_t n) { return (n + kAlignment - 1) / kAlignment * kAlignment; };
  size_t total = 0;
  for (const std::vector<size_t>& launch : sizes) {
    Launch l;
    l.first = blocks_.size();
    l.blocks = launch.size();
    l.begin = total;
    for (size_t bytes : launch) {
      blocks_.push_back({total, bytes});
      total += alignUp(bytes == 0 ? 1 : bytes);  // distinct addresses even for empty blocks
    }
    l.end = l.blocks ? blocks_.back().offset + blocks_.back().bytes : total;
    launches_.push_back(l);
  }
  storage_.reset(static_cast<std::byte*>(
      ::operator new[](total ? total : kAlignment, std::align_val_t(kAlignment))));
  std::memset(storage_.get(), 0, total ? total : kAlignment);
  pointers_.reserve(blocks_.size());
  for (const Block& b : blocks_) pointers_.push_back(storage_.get() + b.offset);
}

}  // namespace tg::rt
