// ---- tg::rand / tg::randn on the device (runtime/lib/Runtime/kernels/random.cuh) ----
// DeviceRandom.cpp puts tg/Support/CounterRandom.h (the one definition of the values) before
// this and defines TG_NAME, TG_STORAGE (the element type in memory), TG_CONVERT (f32 to it,
// rounding to nearest even like tg/Support/Half.h) and either TG_NORMAL or TG_BITS (rand's
// mantissa bits). Element i depends only on (seed, i): any grid gives the same tensor.

#define TG_F32(v) (v)
__device__ __forceinline__ unsigned short tg_random_bf16(float v) {
  unsigned short h;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(v));
  return h;
}
__device__ __forceinline__ unsigned short tg_random_f16(float v) {
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
  return h;
}

extern "C" __global__ void __launch_bounds__(256)
    TG_NAME(TG_STORAGE* __restrict__ out, unsigned long long n, unsigned long long seed) {
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += stride) {
#ifdef TG_NORMAL
    out[i] = TG_CONVERT(tg_random::normalElement(seed, i));
#else
    out[i] = TG_CONVERT(tg_random::uniformElement(seed, i, TG_BITS));
#endif
  }
}
