//===- LaunchParams.h - The kernel parameters of a plan's launches, between runs ===//
//
// Every launch passes the driver one pointer per kernel parameter, each to the parameter's
// value. tg keeps those values here, per launch, at host addresses fixed for the executor's
// lifetime: the Executor writes them once per run (Executor::packLaunch), the direct path hands
// the driver pointers to them, and a CUDA graph (CudaGraph.h) compares them with the values its
// nodes were given. To both, a parameter is an opaque block of bytes whose size is fixed when
// the plan is loaded (the struct of buffer pointers; a launch's block of TMA tensor maps).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace tg::rt {

class LaunchParams {
 public:
  /// Every block starts at this alignment (CUtensorMap needs 64 bytes).
  static constexpr size_t kAlignment = 64;

  LaunchParams() = default;
  /// Room for `sizes[l][p]` bytes for parameter p of launch l, zero-filled.
  explicit LaunchParams(const std::vector<std::vector<size_t>>& sizes);

  size_t launches() const { return launches_.size(); }
  /// Parameters of launch `l`.
  size_t count(size_t l) const { return launches_[l].blocks; }
  /// The bytes of parameter `p` of launch `l` (kAlignment-aligned, blockBytes(l, p) long).
  std::byte* block(size_t l, size_t p) { return storage_.get() + blocks_[launches_[l].first + p].offset; }
  size_t blockBytes(size_t l, size_t p) const { return blocks_[launches_[l].first + p].bytes; }
  /// The driver's kernelParams for launch `l`: one pointer per parameter, to its block.
  void** pointers(size_t l) { return pointers_.data() + launches_[l].first; }
  /// Every byte of launch `l`'s parameters, padding included (padding stays zero): what a
  /// CUDA graph compares to decide whether a node needs new parameters.
  std::span<const std::byte> bytes(size_t l) const {
    return {storage_.get() + launches_[l].begin, launches_[l].end - launches_[l].begin};
  }

 private:
  struct Block {
    size_t offset = 0;
    size_t bytes = 0;
  };
  struct Launch {
    size_t first = 0;   // index of its first block (and pointer)
    size_t blocks = 0;
    size_t begin = 0;   // byte range of its blocks in storage_
    size_t end = 0;
  };
  struct AlignedFree {
    void operator()(std::byte* p) const;
  };
  std::vector<Launch> launches_;
  std::vector<Block> blocks_;
  std::vector<void*> pointers_;
  std::unique_ptr<std::byte[], AlignedFree> storage_;
};

}  // namespace tg::rt
