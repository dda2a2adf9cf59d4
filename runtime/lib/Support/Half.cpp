//===- Half.cpp - bf16 and f16 conversions (round-to-nearest-even) --------===//
#include "tg/Support/Half.h"

#include <cstring>

namespace tg {

static uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

static float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t float_to_bf16(float value) {
  uint32_t u = bitsOf(value);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0)
    return static_cast<uint16_t>((u >> 16) | 0x0040u);  // quiet NaN, sign kept
  // Round to nearest, ties to even: add 0x7fff plus the lowest kept bit.
  uint32_t lsb = (u >> 16) & 1u;
  u += 0x7fffu + lsb;
  return static_cast<uint16_t>(u >> 16);
}

float bf16_to_float(uint16_t bits) { return floatOf(static_cast<uint32_t>(bits) << 16); }

uint16_t float_to_f16(float value) {
  uint32_t u = bitsOf(value);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  uint32_t absBits = u & 0x7fffffffu;
  if (absBits >= 0x7f800000u) {  // inf or NaN
    if (absBits > 0x7f800000u) return sign | 0x7e00u;
    return sign | 0x7c00u;
  }
  // 65520 and above round to infinity (the largest f16 is 65504).
  if (absBits >= 0x477ff000u) return sign | 0x7c00u;
  int32_t exp = static_cast<int32_t>(absBits >> 23) - 127;
  if (exp >= -14) {  // normal f16
    uint32_t mant = absBits & 0x7fffffu;
    uint32_t half = (static_cast<uint32_t>(exp + 15) << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // may carry into exponent
    return sign | static_cast<uint16_t>(half);
  }
  if (exp < -25) return sign;  // below half the smallest subnormal: rounds to zero
  // Subnormal f16: value = mant * 2^-24 with the implicit bit made explicit.
  uint32_t mant = (absBits & 0x7fffffu) | 0x800000u;
  int shift = -exp - 14 + 13;  // 14..24
  uint32_t half = mant >> shift;
  uint32_t rest = mant & ((1u << shift) - 1u);
  uint32_t halfway = 1u << (shift - 1);
  if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
  return sign | static_cast<uint16_t>(half);
}

float f16_to_float(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exp = (bits >> 10) & 0x1fu;
  uint32_t mant = bits & 0x3ffu;
  if (exp == 0x1fu) return floatOf(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    if (mant == 0) return floatOf(sign);
    // Subnormal: normalise.
    int e = -14;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --e;
    }
    mant &= 0x3ffu;
    return floatOf(sign | (static_cast<uint32_t>(e + 127) << 23) | (mant << 13));
  }
  return floatOf(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

}  // namespace tg
