// ---- tg kernel prelude (compiler/lib/CodeGen/templates/prelude.cuh) ----
// Header-free: NVRTC 13 ships no cuda_bf16.h / cuda_fp16.h, so 16-bit floats are carried as
// their bit patterns and converted with PTX cvt instructions. Conversions round to nearest
// even, as the reference (runtime/lib/Support/Half.cpp) does.

// Programmatic dependent launch (TG_PDL=1 on sm_90+; Plan::programmaticLaunches): each kernel
// first waits for the grids it depends on (griddepcontrol.wait returns once they have completed
// and their writes are visible), then lets the next kernel's blocks launch, so that launch
// overlaps this kernel's run. Every kernel calls TG_GRID_PROLOGUE() before it touches memory;
// launched without the attribute, both instructions do nothing.
#ifndef TG_PDL
#define TG_PDL 0
#endif
#if TG_PDL && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define TG_GRID_PROLOGUE() asm volatile("griddepcontrol.wait;\n\tgriddepcontrol.launch_dependents;" ::: "memory")
#else
#define TG_GRID_PROLOGUE() ((void)0)
#endif

typedef unsigned short tg_bf16;
typedef unsigned short tg_f16;
typedef unsigned char tg_bool;

__device__ __forceinline__ float tg_from_bf16(unsigned short h) {
  return __uint_as_float(((unsigned)h) << 16);
}
// Round-to-nearest-even with integer operations: conversion instructions share the slow
// (quarter-rate) pipe with MUFU, and a fused bf16 chain rounds after every op.
__device__ __forceinline__ unsigned short tg_to_bf16(float f) {
  unsigned u = __float_as_uint(f);
  if (f != f) return (unsigned short)((u >> 16) | 0x40u);  // NaN stays a (quiet) NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return (unsigned short)(u >> 16);
}
__device__ __forceinline__ float tg_from_f16(unsigned short h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
__device__ __forceinline__ unsigned short tg_to_f16(float f) {
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
// The value of an op whose result dtype is bf16 / f16: computed in f32, then rounded.
__device__ __forceinline__ float tg_round_bf16(float f) {
  unsigned u = __float_as_uint(f);
  if (f != f) return f;
  u += 0x7fffu + ((u >> 16) & 1u);
  return __uint_as_float(u & 0xffff0000u);
}
__device__ __forceinline__ float tg_round_f16(float f) { return tg_from_f16(tg_to_f16(f)); }

// Hardware approximations (MUFU). Precision::Auto uses ex2/rcp-based exp, sigmoid and division
// for f32 (a few ulp, as Triton does) and all of these for bf16 results; Precision::Fast uses
// them everywhere; Precision::Accurate never.
__device__ __forceinline__ float tg_tanh_approx(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ float tg_exp_approx(float x) {
  float y;
  asm("ex2.approx.f32 %0, %1;" : "=f"(y) : "f"(x * 1.4426950408889634f));
  return y;
}
__device__ __forceinline__ float tg_rcp_approx(float x) {
  float y;
  asm("rcp.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
// 1 / (1 + e^-x): the error stays relative for every x (0.5 * tanh(x / 2) + 0.5 would turn
// tanh's relative error into an absolute one, ruinous for sigmoid of large negative x).
__device__ __forceinline__ float tg_sigmoid_approx(float x) {
  return tg_rcp_approx(1.0f + tg_exp_approx(-x));
}
// GELU (tanh form) as x * sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3): equal to
// 0.5 x (1 + tanh(u)) without its cancellation for negative x.
// The flush-to-zero forms (one instruction each; the others add range fix-ups) differ only
// where sigmoid(2u) < 2^-126 (x below about -10), where this returns -0 for x * (that): an
// error under 2^-122 |x|, far inside any bf16 or approximate-f32 tolerance.
__device__ __forceinline__ float tg_gelu_tanh_approx(float x) {
  const float u = 0.7978845608028654f * (x + 0.044715f * x * x * x);
  float e, s;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(u * -2.8853900817779268f));  // e^(-2u)
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(s) : "f"(1.0f + e));
  return x * s;
}
// x / (1 + e^-x) as x * sigmoid(x): relative error as tg_sigmoid_approx.
__device__ __forceinline__ float tg_silu_approx(float x) { return x * tg_sigmoid_approx(x); }
__device__ __forceinline__ float tg_div_full(float a, float b) {
  float y;
  asm("div.full.f32 %0, %1, %2;" : "=f"(y) : "f"(a), "f"(b));  // full range, 2 ulp
  return y;
}
__device__ __forceinline__ float tg_rsqrt_approx(float x) {
  float y;
  asm("rsqrt.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// The reference's semantics for the corner cases (RefKernels.h).
__device__ __forceinline__ float tg_maxf(float a, float b) { return (a > b || a != a) ? a : b; }
__device__ __forceinline__ float tg_minf(float a, float b) { return (a < b || a != a) ? a : b; }
__device__ __forceinline__ float tg_relu(float x) { return x < 0.0f ? 0.0f : x; }
__device__ __forceinline__ float tg_clampf(float x, float lo, float hi) { return tg_minf(tg_maxf(x, lo), hi); }
__device__ __forceinline__ float tg_signf(float x) {  // NaN kept, -0 -> +0
  return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : (x != x ? x : 0.0f));
}
// argmax / argmin as a maximum of 64-bit keys: the value's order in the high half (argmin:
// inverted), the index inverted in the low half, so the largest key is the first index of the
// extreme. NaN is above every value (its first index wins, as PyTorch); -0 equals +0.
__device__ __forceinline__ unsigned tg_order_bits(float v) {
  const unsigned u = __float_as_uint(v == 0.0f ? 0.0f : v);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
template <bool kMin, typename Index>
__device__ __forceinline__ unsigned long long tg_arg_key(float v, Index i) {
  const unsigned order = v != v ? 0xffffffffu : (kMin ? ~tg_order_bits(v) : tg_order_bits(v));
  return ((unsigned long long)order << 32) | (0xffffffffu - (unsigned)i);
}
template <bool kMin, typename Index>
__device__ __forceinline__ unsigned long long tg_arg_key(int v, Index i) {
  const unsigned order = (unsigned)v ^ 0x80000000u;
  return ((unsigned long long)(kMin ? ~order : order) << 32) | (0xffffffffu - (unsigned)i);
}
__device__ __forceinline__ int tg_arg_index(unsigned long long key) {
  return (int)(0xffffffffu - (unsigned)key);
}
__device__ __forceinline__ unsigned long long tg_umax64(unsigned long long a, unsigned long long b) {
  return a > b ? a : b;
}
__device__ __forceinline__ float tg_addf(float a, float b) { return a + b; }
__device__ __forceinline__ float tg_mulf(float a, float b) { return a * b; }
__device__ __forceinline__ int tg_imax(int a, int b) { return a > b ? a : b; }
__device__ __forceinline__ int tg_imin(int a, int b) { return a < b ? a : b; }
// 32-bit index division by a run-time extent (a size argument: IndexExpr::str): Granlund and
// Montgomery's round-up multiplier (PLDI 1994, fig. 4.1), exact for every dividend and divisor
// >= 1. The multiplier depends on the divisor alone, a kernel parameter, so it is computed once
// and each division is a multiply-high, two shifts and two adds, where the division instruction
// sequence is about 20 (a heads split over dynamic dims divides by the sequence length several
// times an element).
__device__ __forceinline__ unsigned tg_udiv(unsigned n, unsigned d) {
  const unsigned l = 32u - __clz(d - 1u);  // ceil(log2 d)
  const unsigned m = (unsigned)((((unsigned long long)((1ull << l) - d)) << 32) / d) + 1u;
  const unsigned t = __umulhi(m, n);
  return (t + ((n - t) >> (l < 1u ? l : 1u))) >> (l > 1u ? l - 1u : 0u);
}
__device__ __forceinline__ unsigned tg_umod(unsigned n, unsigned d) { return n - tg_udiv(n, d) * d; }
__device__ __forceinline__ int tg_iadd(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
__device__ __forceinline__ int tg_isub(int a, int b) { return (int)((unsigned)a - (unsigned)b); }
__device__ __forceinline__ int tg_imul(int a, int b) { return (int)((unsigned)a * (unsigned)b); }
__device__ __forceinline__ int tg_ineg(int a) { return (int)(0u - (unsigned)a); }
__device__ __forceinline__ int tg_iabs(int a) { return a < 0 ? tg_ineg(a) : a; }
__device__ __forceinline__ int tg_isign(int x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }
__device__ __forceinline__ int tg_iclamp(int x, int lo, int hi) { return tg_imin(tg_imax(x, lo), hi); }
// An index read from a tensor was out of range: check site `id` fails (the first failure stays
// in the flag; the host raises it at its next sync point). The caller clamps the index.
__device__ __forceinline__ void tg_index_failed(int* flag, int id) { atomicCAS(flag, 0, id); }
__device__ __forceinline__ int tg_idiv(int a, int b) {
  return b == 0 ? 0 : (b == -1 ? tg_ineg(a) : a / b);  // x / 0 = 0, INT_MIN / -1 = INT_MIN
}
__device__ __forceinline__ int tg_f2i(float x) {
  int i;
  asm("cvt.rzi.s32.f32 %0, %1;" : "=r"(i) : "f"(x));  // saturates; NaN -> 0
  return i;
}

// i32 -> f32 with round-to-odd: a later rounding to bf16/f16 is then a single, correct
// round-to-nearest-even of the integer (the reference rounds integers to bf16 directly).
__device__ __forceinline__ float tg_i2f_odd(int i) {
  float f;
  asm("cvt.rz.f32.s32 %0, %1;" : "=f"(f) : "r"(i));
  if ((long long)f != (long long)i) f = __uint_as_float(__float_as_uint(f) | 1u);
  return f;
}

// One 16-byte global access. TG_CACHE_HINT (defined by the elementwise emitter, 0 when absent)
// picks the PTX cache operator: 0 the default (.ca/.wb), 1 streaming (.cs: evict first, the data
// is touched once), 2 loads through the non-coherent path without L1 allocation. (Asking L2
// for 256-byte fetches, `.L2::256B`, measured no faster: benchmarks/RESULTS.md, ca5b729.)
#ifndef TG_CACHE_HINT
#define TG_CACHE_HINT 0
#endif
__device__ __forceinline__ uint4 tg_ld16(const uint4* p) {
#if TG_CACHE_HINT == 1
  uint4 r;
  asm volatile("ld.global.cs.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
  return r;
#elif TG_CACHE_HINT == 2
  uint4 r;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
  return r;
#else
  return *p;
#endif
}
__device__ __forceinline__ void tg_st16(uint4* p, uint4 v) {
#if TG_CACHE_HINT == 1
  asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};"
               :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
#else
  *p = v;
#endif
}

// 16-byte vector access to N consecutive elements (N * sizeof(T) is a multiple of 16).
template <typename T, int N>
__device__ __forceinline__ void tg_load_vec(const T* p, T (&v)[N]) {
  constexpr int kPer = 16 / sizeof(T);
#pragma unroll
  for (int c = 0; c < N / kPer; ++c) {
    union {
      uint4 raw;
      T e[kPer];
    } u;
    u.raw = tg_ld16(reinterpret_cast<const uint4*>(p) + c);
#pragma unroll
    for (int j = 0; j < kPer; ++j) v[c * kPer + j] = u.e[j];
  }
}
template <typename T, int N>
__device__ __forceinline__ void tg_store_vec(T* p, const T (&v)[N]) {
  constexpr int kPer = 16 / sizeof(T);
#pragma unroll
  for (int c = 0; c < N / kPer; ++c) {
    union {
      uint4 raw;
      T e[kPer];
    } u;
#pragma unroll
    for (int j = 0; j < kPer; ++j) u.e[j] = v[c * kPer + j];
    tg_st16(reinterpret_cast<uint4*>(p) + c, u.raw);
  }
}
// Two f32 values rounded (to nearest even) to bf16 / f16 and packed, the first in the low half:
// one conversion instruction on sm_80 and newer (NaN becomes the canonical NaN there).
__device__ __forceinline__ unsigned tg_pack_bf16x2(float lo, float hi) {
#if __CUDA_ARCH__ >= 800
  unsigned r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
#else
  return (unsigned)tg_to_bf16(lo) | ((unsigned)tg_to_bf16(hi) << 16);
#endif
}
__device__ __forceinline__ unsigned tg_pack_f16x2(float lo, float hi) {
#if __CUDA_ARCH__ >= 800
  unsigned r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
#else
  return (unsigned)tg_to_f16(lo) | ((unsigned)tg_to_f16(hi) << 16);
#endif
}
// Two 2-byte values in one 32-bit word, the first in the low half (memory order).
template <typename T>
__device__ __forceinline__ unsigned tg_pack_pair(T a, T b) {
  static_assert(sizeof(T) == 2, "pairs of 2-byte values");
  union {
    T e[2];
    unsigned raw;
  } u;
  u.e[0] = a;
  u.e[1] = b;
  return u.raw;
}
// Elements p[0] and p[1] (p aligned to two elements): one 4- or 8-byte store when it can.
template <typename T>
__device__ __forceinline__ void tg_store_pair(T* p, T a, T b) {
  if constexpr (sizeof(T) == 2) {
    *reinterpret_cast<unsigned*>(p) = tg_pack_pair(a, b);
  } else if constexpr (sizeof(T) == 4) {
    *reinterpret_cast<unsigned long long*>(p) =
        (unsigned long long)__float_as_uint(*reinterpret_cast<const float*>(&a)) |
        ((unsigned long long)__float_as_uint(*reinterpret_cast<const float*>(&b)) << 32);
  } else {
    p[0] = a;
    p[1] = b;
  }
}
__device__ __forceinline__ bool tg_aligned16(const void* p) {
  return (reinterpret_cast<unsigned long long>(p) & 15ull) == 0;
}
