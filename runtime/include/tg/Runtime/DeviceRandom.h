//===- DeviceRandom.h - tg::rand / tg::randn made on the GPU --------------===//
//
// A CUDA tensor of random values is filled by a kernel on tg's stream: no host buffer, no
// host-to-device copy, and the same bits as the CPU tensor of the same seed (both evaluate
// tg/Support/CounterRandom.h). The kernel is compiled with NVRTC once per (dtype,
// distribution) and kept in the kernel cache like every tg kernel.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Runtime/Gpu.h"
#include "tg/Runtime/Plan.h"
#include "tg/Support/DType.h"

#include <cstddef>
#include <cstdint>

namespace tg::rt {

enum class RandomDistribution { Uniform, Normal };

/// The kernel fillRandom launches for `dtype` (a float dtype): parameters (storage* out,
/// unsigned long long count, unsigned long long seed), any grid.
KernelSource randomKernel(DType dtype, RandomDistribution distribution);

/// Writes elements [0, count) of tg::rand (Uniform) or tg::randn (Normal) for `seed` as
/// `dtype` (a float dtype) to `dst`, queued on tg's stream.
void fillRandom(Gpu& gpu, DevicePtr dst, size_t count, DType dtype, uint64_t seed,
                RandomDistribution distribution);

/// Significant bits of a float dtype (24, 11, 8): tg::rand's values are multiples of
/// 2^-bits, exact in the dtype.
int randomMantissaBits(DType dtype);

}  // namespace tg::rt
