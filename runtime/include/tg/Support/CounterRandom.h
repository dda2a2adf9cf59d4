//===- CounterRandom.h - tg::randn / tg::rand values, on the host and the GPU ===//
//
// Element i of tg::rand / tg::randn(shape, dtype, seed) depends only on (seed, i): a
// SplitMix64 mix of the counter, 53 random bits per uniform, Box-Muller for normals. This
// header is the one definition of those values. The host includes it (CPU tensors, the
// reference); the runtime embeds its text into the kernel that fills CUDA tensors
// (runtime/lib/Runtime/kernels/random.cuh), so a CUDA tensor is made on the device, with no
// host buffer, and holds the same bits as the CPU tensor of the same seed.
//
// Bit-identical on both sides because every step is an IEEE operation that both round
// correctly (+ - * / and sqrt in double, integer mixing, one final rounding to f32): log and
// cos are evaluated here from series in those operations (accurate to about 1 ulp of double,
// so the f32 values agree with libm's except in the rarest rounding ties), never with the
// platform's libm or CUDA's math library. Host code using it must not contract a * b + c into
// FMAs (-ffp-contract=off; NVRTC: --fmad=false, as for every tg kernel).
//
// Plain C++ that NVRTC also compiles: no includes under NVRTC, no std:: in the functions.
//
//===----------------------------------------------------------------------===//
#pragma once

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define TG_RANDOM_FN __host__ __device__ __forceinline__
#else
#include <cstdint>
#include <cstring>
#define TG_RANDOM_FN inline
#endif

namespace tg_random {

typedef unsigned long long u64;

/// SplitMix64's finaliser: a bijective mix of a 64-bit counter into well-spread bits.
TG_RANDOM_FN u64 mix(u64 z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// Uniform in [0, 1) with 53 random bits, from the (seed, stream, index) counter.
TG_RANDOM_FN double uniform(u64 seed, u64 index, u64 stream) {
  const u64 bits = mix(mix(seed * 0x9e3779b97f4a7c15ull + stream) + index);
  return (double)(bits >> 11) * 0x1p-53;
}

TG_RANDOM_FN u64 bitsOf(double d) {
#if defined(__CUDA_ARCH__)
  return (u64)__double_as_longlong(d);
#else
  u64 u;
  std::memcpy(&u, &d, sizeof u);
  return u;
#endif
}

TG_RANDOM_FN double doubleOf(u64 u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double((long long)u);
#else
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
#endif
}

/// ln(u) for a normal double u > 0 (here (0, 1]): u = m 2^e with m in [sqrt(1/2), sqrt(2)),
/// ln(m) = 2 atanh(s) = 2 (s + s^3/3 + ...) with s = (m - 1) / (m + 1), |s| < 0.1716: twelve
/// terms leave less than 2^-56 of the value; ln 2 in two parts (fdlibm's) keeps e ln 2 exact.
TG_RANDOM_FN double log(double u) {
  const u64 bits = bitsOf(u);
  int e = (int)((bits >> 52) & 0x7ff) - 1023;
  double m = doubleOf((bits & 0xfffffffffffffull) | 0x3ff0000000000000ull);  // [1, 2)
  if (m > 0x1.6a09e667f3bcdp+0) {  // sqrt(2)
    m *= 0.5;
    ++e;
  }
  const double s = (m - 1.0) / (m + 1.0), z = s * s;
  double p = 0x1.47ae147ae147bp-4;  // 2/25
  p = p * z + 0x1.642c8590b2164p-4;  // 2/23
  p = p * z + 0x1.8618618618618p-4;  // 2/21
  p = p * z + 0x1.af286bca1af28p-4;  // 2/19
  p = p * z + 0x1.e1e1e1e1e1e1ep-4;  // 2/17
  p = p * z + 0x1.1111111111111p-3;  // 2/15
  p = p * z + 0x1.3b13b13b13b14p-3;  // 2/13
  p = p * z + 0x1.745d1745d1746p-3;  // 2/11
  p = p * z + 0x1.c71c71c71c71cp-3;  // 2/9
  p = p * z + 0x1.2492492492492p-2;  // 2/7
  p = p * z + 0x1.999999999999ap-2;  // 2/5
  p = p * z + 0x1.5555555555555p-1;  // 2/3
  const double lnm = 2.0 * s + s * z * p;
  const double ln2Hi = 0x1.62e42fee00000p-1, ln2Lo = 0x1.a39ef35793c76p-33;
  return (double)e * ln2Hi + ((double)e * ln2Lo + lnm);
}

/// cos(x) and sin(x) for x in [0, pi/4], Taylor series to x^18 / x^17 (the next terms are
/// below 2^-60).
TG_RANDOM_FN double cosSeries(double x) {
  const double z = x * x;
  // cos x = 1 - z (1/2! - z/4! + z^2/6! - ... + z^8/18!), z = x^2.
  double c = 0x1.6827863b97d97p-53;     // 1/18!
  c = c * z - 0x1.ae7f3e733b81fp-45;    // 1/16!
  c = c * z + 0x1.93974a8c07c9dp-37;    // 1/14!
  c = c * z - 0x1.1eed8eff8d898p-29;    // 1/12!
  c = c * z + 0x1.27e4fb7789f5cp-22;    // 1/10!
  c = c * z - 0x1.a01a01a01a01ap-16;    // 1/8!
  c = c * z + 0x1.6c16c16c16c17p-10;    // 1/6!
  c = c * z - 0x1.5555555555555p-5;     // 1/4!
  c = c * z + 0x1p-1;                   // 1/2!
  return 1.0 - z * c;
}

TG_RANDOM_FN double sinSeries(double x) {
  const double z = x * x;
  // sin x = x + x z (-1/3! + z/5! - ... + z^7/17!).
  double c = 0x1.952c77030ad4ap-49;     // 1/17!
  c = c * z - 0x1.ae7f3e733b81fp-41;    // -1/15!
  c = c * z + 0x1.6124613a86d09p-33;    // 1/13!
  c = c * z - 0x1.ae64567f544e4p-26;    // -1/11!
  c = c * z + 0x1.71de3a556c734p-19;    // 1/9!
  c = c * z - 0x1.a01a01a01a01ap-13;    // -1/7!
  c = c * z + 0x1.1111111111111p-7;     // 1/5!
  c = c * z - 0x1.5555555555555p-3;     // -1/3!
  return x + x * z * c;
}

/// cos(2 pi t) for t in [0, 1), folded to [0, pi/4] by exact steps (1 - t, 0.5 - t, 0.25 - t
/// are exact where they are taken).
TG_RANDOM_FN double cos2pi(double t) {
  if (t >= 0.5) t = 1.0 - t;  // cos(2 pi t) = cos(2 pi (1 - t))
  double sign = 1.0;
  if (t > 0.25) {  // cos(2 pi t) = -cos(2 pi (0.5 - t))
    t = 0.5 - t;
    sign = -1.0;
  }
  const double twoPi = 0x1.921fb54442d18p+2;
  if (t > 0.125) return sign * sinSeries(twoPi * (0.25 - t));  // cos(a) = sin(pi/2 - a)
  return sign * cosSeries(twoPi * t);
}

/// Element `index` of tg::rand for a dtype with `mantissaBits` significant bits: a multiple of
/// 2^-mantissaBits in [0, 1), exact in that dtype (so rounding can never reach 1).
TG_RANDOM_FN float uniformElement(u64 seed, u64 index, int mantissaBits) {
  const double scale = (double)(1ull << mantissaBits);
  const double u = uniform(seed, index, 0) * scale;
  return (float)((double)(u64)u / scale);  // floor: u >= 0
}

/// Element `index` of tg::randn: Box-Muller on two independent streams; 1 - u keeps the log
/// argument in (0, 1].
TG_RANDOM_FN float normalElement(u64 seed, u64 index) {
  const double u1 = 1.0 - uniform(seed, index, 1), u2 = uniform(seed, index, 2);
  const double r2 = -2.0 * log(u1);
#if defined(__CUDA_ARCH__)
  const double r = __dsqrt_rn(r2);
#else
  const double r = __builtin_sqrt(r2);
#endif
  return (float)(r * cos2pi(u2));
}

}  // namespace tg_random
