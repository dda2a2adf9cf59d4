//===- HalfTest.cpp - bf16/f16 conversions against an independent rounding ===//
#include "tg/Support/Half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

namespace {

float bitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Round-to-nearest-even to `mantissaBits` explicit bits by exact arithmetic in double:
/// an implementation independent of the bit tricks under test (normal range only).
double roundToPrecision(double x, int mantissaBits) {
  if (x == 0 || !std::isfinite(x)) return x;
  int exp;
  std::frexp(x, &exp);  // x = m * 2^exp, 0.5 <= |m| < 1
  double ulp = std::ldexp(1.0, exp - 1 - mantissaBits);
  double q = x / ulp;
  double r = std::nearbyint(q);  // default rounding mode: to nearest, ties to even
  return r * ulp;
}

TEST(Half, Bf16RoundTripsEveryPattern) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    float f = tg::bf16_to_float(static_cast<uint16_t>(bits));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(tg::bf16_to_float(tg::float_to_bf16(f))));
      continue;
    }
    EXPECT_EQ(tg::float_to_bf16(f), bits) << "pattern " << bits;
  }
}

TEST(Half, F16RoundTripsEveryPattern) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    float f = tg::f16_to_float(static_cast<uint16_t>(bits));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(tg::f16_to_float(tg::float_to_f16(f))));
      continue;
    }
    EXPECT_EQ(tg::float_to_f16(f), bits) << "pattern " << bits;
  }
}

TEST(Half, Bf16RoundsToNearestEvenOnRandomFloats) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> dist;
  for (int i = 0; i < 200000; ++i) {
    float f = bitsToFloat(dist(rng) & 0xbfffffffu);  // keep exponents away from inf/NaN
    if (!std::isfinite(f) || std::fabs(f) < 1e-37f) continue;
    double expected = roundToPrecision(f, 7);
    EXPECT_EQ(static_cast<double>(tg::bf16_to_float(tg::float_to_bf16(f))), expected) << f;
  }
}

TEST(Half, F16RoundsToNearestEvenInTheNormalRange) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> mag(-15.0f, 15.9f);
  for (int i = 0; i < 200000; ++i) {
    float f = std::exp2(mag(rng)) * (i % 2 ? -1.0f : 1.0f);
    if (std::fabs(f) < 6.2e-5f || std::fabs(f) >= 65504.0f) continue;  // normal range only
    double expected = roundToPrecision(f, 10);
    EXPECT_EQ(static_cast<double>(tg::f16_to_float(tg::float_to_f16(f))), expected) << f;
  }
}

TEST(Half, TiesRoundToEven) {
  // 1 + 2^-8 is exactly halfway between bf16 neighbours 1 and 1 + 2^-7: rounds to 1 (even).
  EXPECT_EQ(tg::bf16_to_float(tg::float_to_bf16(1.0f + 0x1.0p-8f)), 1.0f);
  // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: rounds up to the even 1 + 2^-6.
  EXPECT_EQ(tg::bf16_to_float(tg::float_to_bf16(1.0f + 3 * 0x1.0p-8f)), 1.0f + 0x1.0p-6f);
  EXPECT_EQ(tg::f16_to_float(tg::float_to_f16(1.0f + 0x1.0p-11f)), 1.0f);
  EXPECT_EQ(tg::f16_to_float(tg::float_to_f16(1.0f + 3 * 0x1.0p-11f)), 1.0f + 0x1.0p-9f);
}

TEST(Half, F16OverflowSubnormalsAndSpecials) {
  EXPECT_EQ(tg::f16_to_float(tg::float_to_f16(65504.0f)), 65504.0f);
  EXPECT_EQ(tg::f16_to_float(tg::float_to_f16(65519.0f)), 65504.0f);
  EXPECT_TRUE(std::isinf(tg::f16_to_float(tg::float_to_f16(65520.0f))));
  EXPECT_EQ(tg::f16_to_float(tg::float_to_f16(0x1.0p-24f)), 0x1.0p-24f);   // smallest subnormal
  EXPECT_EQ(tg::f16_to_float(tg::float_to_f16(0x1.0p-25f)), 0.0f);         // tie -> even (0)
  EXPECT_EQ(tg::f16_to_float(tg::float_to_f16(0x1.8p-25f)), 0x1.0p-24f);   // above the tie
  EXPECT_EQ(tg::f16_to_float(tg::float_to_f16(3 * 0x1.0p-25f)), 2 * 0x1.0p-24f);  // tie -> even
  EXPECT_TRUE(std::signbit(tg::f16_to_float(tg::float_to_f16(-0.0f))));
  EXPECT_TRUE(std::isnan(tg::f16_to_float(tg::float_to_f16(std::nanf("")))));
  EXPECT_TRUE(std::isnan(tg::bf16_to_float(tg::float_to_bf16(std::nanf("")))));
  EXPECT_TRUE(std::isinf(tg::bf16_to_float(tg::float_to_bf16(std::numeric_limits<float>::max()))));
}

}  // namespace
