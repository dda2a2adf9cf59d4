//===- KernelAbi.h - How a generated kernel is launched -------------------===//
//
// The part of the compiler -> runtime contract that describes a launch rather than the GPU:
// grid and block sizes, dynamic shared memory, and the TMA tensor maps a kernel takes by
// value. Plan.h needs only this; Gpu.h (the driver) encodes and launches with it. Free of
// CUDA headers.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace tg::rt {

/// A TMA tensor map (CUtensorMap) over a row-major tensor: up to 3 dims, innermost first, with
/// a box (the tile one copy moves) and 128-byte swizzling of shared memory. Encoded on the host
/// for each new base address (Gpu::encodeTensorMap); kernels take it by value.
struct TensorMapSpec {
  enum class Type : uint8_t { BF16, F16, F32, TF32 };  ///< TF32: f32 in memory, read for TF32 math
  Type type = Type::BF16;
  uint32_t rank = 2;
  uint64_t dims[3] = {1, 1, 1};     ///< elements, innermost first
  uint64_t strides[2] = {0, 0};     ///< bytes between consecutive indices of dims 1 and 2
  uint32_t box[3] = {1, 1, 1};      ///< elements, innermost first
  bool swizzle128 = true;
  /// Bytes from the argument's address to the tensor's first element (a multiple of 16, as
  /// TMA needs): a window of a larger buffer, a layer's part of a KV cache.
  uint64_t byteOffset = 0;
};

/// The bytes of one encoded tensor map (CUtensorMap: 128 bytes, 64-byte aligned).
struct alignas(64) TensorMapBytes {
  unsigned char bytes[128];
};

struct LaunchDims {
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t sharedBytes = 0;
};

}  // namespace tg::rt
