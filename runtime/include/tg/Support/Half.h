//===- Half.h - bf16 and f16 <-> f32 conversions by bit operations --------===//
//
// tg stores bf16 and f16 as 16-bit patterns and computes in f32. Rounding from f32 is
// round-to-nearest-even; NaN stays NaN (quiet), infinities and signed zeros are kept, f16
// overflow rounds to infinity and small values become f16 subnormals. The generated CUDA code
// uses the same rules (see compiler/lib/CodeGen), so CPU and GPU results match bit for bit on
// conversions.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace tg {

uint16_t float_to_bf16(float value);
float bf16_to_float(uint16_t bits);
uint16_t float_to_f16(float value);
float f16_to_float(uint16_t bits);

}  // namespace tg
