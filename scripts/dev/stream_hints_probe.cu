// stream_hints_probe.cu - issue 3 probe: what separates a 2-read/1-write f32 stream from HBM's
// ceiling, and does any cache hint or buffer placement move it?
// Standalone (nvcc -arch=sm_90a -O3 -o stream_hints_probe stream_hints_probe.cu); runs on the
// H200 through the device tool. Same 64M-element arrays as the f32 chain benchmark.
// Timing as tg_bench does it: launches queued back to back (no sync between them), events
// around a batch of 20, per-launch mean; 7 batches per variant, variants interleaved round by
// round, median of the batches reported.
//   read2     reads a and b, writes one float per thread   (the read ceiling, 2 streams)
//   write1    writes o only                                 (the write ceiling)
//   copy      o = a                                         (1:1, same size)
//   base      o = a * b + a, tg's skeleton: 256 threads, 2 float4 steps a grid apart, one pass
//   l2_128 / l2_256   base with ld.global.L2::128B / ::256B prefetch hints on the loads
//   evict     base with an L2::evict_first cache policy on loads and stores
//   pad_K     base with a, b, o carved from one allocation, K KiB apart beyond their size
//   X/ev      X timed per launch, as tg_bench and compare_torch.py time (median of 20 pairs)
//   tgchain/graph  tgchain as a one-node CUDA graph, as tg's jit launches it from its 3rd call
//   tgchain   tg's own kernel for the 8-op chain, when built with -DTG_CHAIN_CU='"file.cu"': the
//             source `tgc dump chain8 --stage=plan` writes, kNumel set to 64M (scripts/dev/
//             stream_hints_probe.sh does both)
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)

constexpr int kBlock = 256, kSteps = 2;

template <int Hint>
__device__ __forceinline__ float4 load4(const float4* p, unsigned long long policy) {
  float4 v;
  if constexpr (Hint == 1)
    asm volatile("ld.global.nc.L2::128B.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  else if constexpr (Hint == 2)
    asm volatile("ld.global.nc.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  else if constexpr (Hint == 3)
    asm volatile("ld.global.nc.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(policy));
  else
    v = __ldg(p);
  return v;
}

template <int Hint>
__device__ __forceinline__ void store4(float4* p, float4 v, unsigned long long policy) {
  if constexpr (Hint == 3)
    asm volatile("st.global.L2::cache_hint.v4.f32 [%0], {%1,%2,%3,%4}, %5;" :: "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w), "l"(policy) : "memory");
  else
    *p = v;
}

template <int Hint>
__global__ void __launch_bounds__(kBlock) fmaKernel(const float4* __restrict__ a, const float4* __restrict__ b, float4* __restrict__ o, size_t n4) {
  unsigned long long policy = 0;
  if constexpr (Hint == 3) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  const size_t stride = (size_t)gridDim.x * kBlock;
  for (size_t base = (size_t)blockIdx.x * kBlock + threadIdx.x; base < n4; base += stride * kSteps) {
    float4 x[kSteps], y[kSteps];
#pragma unroll
    for (int u = 0; u < kSteps; ++u)
      if (base + u * stride < n4) { x[u] = load4<Hint>(a + base + u * stride, policy); y[u] = load4<Hint>(b + base + u * stride, policy); }
#pragma unroll
    for (int u = 0; u < kSteps; ++u)
      if (base + u * stride < n4) {
        float4 r;
        r.x = x[u].x * y[u].x + x[u].x; r.y = x[u].y * y[u].y + x[u].y; r.z = x[u].z * y[u].z + x[u].z; r.w = x[u].w * y[u].w + x[u].w;
        store4<Hint>(o + base + u * stride, r, policy);
      }
  }
}

__global__ void __launch_bounds__(kBlock) read2Kernel(const float4* __restrict__ a, const float4* __restrict__ b, float* __restrict__ o, size_t n4) {
  const size_t stride = (size_t)gridDim.x * kBlock;
  float acc = 0;
  for (size_t base = (size_t)blockIdx.x * kBlock + threadIdx.x; base < n4; base += stride * kSteps) {
    float4 x[kSteps], y[kSteps];
#pragma unroll
    for (int u = 0; u < kSteps; ++u)
      if (base + u * stride < n4) { x[u] = __ldg(a + base + u * stride); y[u] = __ldg(b + base + u * stride); }
#pragma unroll
    for (int u = 0; u < kSteps; ++u)
      if (base + u * stride < n4) acc += x[u].x * y[u].x + x[u].y * y[u].y + x[u].z * y[u].z + x[u].w * y[u].w;
  }
  o[(size_t)blockIdx.x * kBlock + threadIdx.x] = acc;
}

__global__ void __launch_bounds__(kBlock) write1Kernel(float4* __restrict__ o, size_t n4, float v) {
  const size_t stride = (size_t)gridDim.x * kBlock;
  for (size_t base = (size_t)blockIdx.x * kBlock + threadIdx.x; base < n4; base += stride * kSteps)
#pragma unroll
    for (int u = 0; u < kSteps; ++u)
      if (base + u * stride < n4) o[base + u * stride] = make_float4(v, v + 1, v + 2, v + 3);
}

__global__ void __launch_bounds__(kBlock) copyKernel(const float4* __restrict__ a, float4* __restrict__ o, size_t n4) {
  const size_t stride = (size_t)gridDim.x * kBlock;
  for (size_t base = (size_t)blockIdx.x * kBlock + threadIdx.x; base < n4; base += stride * kSteps) {
    float4 x[kSteps];
#pragma unroll
    for (int u = 0; u < kSteps; ++u) if (base + u * stride < n4) x[u] = __ldg(a + base + u * stride);
#pragma unroll
    for (int u = 0; u < kSteps; ++u) if (base + u * stride < n4) o[base + u * stride] = x[u];
  }
}

// Fills with hashed values in [-1, 1): the padded placements are timed on data, not zeros.
__global__ void fillKernel(float* p, size_t count) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u;
    h ^= h >> 15;
    p[i] = (float)(h & 0xffff) / 32768.0f - 1.0f;
  }
}

#ifdef TG_CHAIN_CU
#include TG_CHAIN_CU
#endif

struct Variant {
  std::string name;
  double bytes;
  std::function<void()> launch;
  bool perCall = false;  // timed as tg_bench and compare_torch.py do: an event pair per launch
  std::vector<float> batches;
};

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 7;
  const size_t n = size_t(64) << 20, n4 = n / 4, bytes1 = n * 4;
  const unsigned grid = (unsigned)((n4 + (size_t)kBlock * kSteps - 1) / ((size_t)kBlock * kSteps));
  float *a, *b, *o, *partial;
  CK(cudaMalloc(&a, bytes1)); CK(cudaMalloc(&b, bytes1)); CK(cudaMalloc(&o, bytes1));
  CK(cudaMalloc(&partial, (size_t)grid * kBlock * 4));
  std::vector<float> ha(n), hb(n);
  for (size_t i = 0; i < n; ++i) { ha[i] = (float)((i * 2654435761u) % 1000) / 500.0f - 1; hb[i] = (float)((i * 40503u) % 777) / 300.0f - 1.3f; }
  CK(cudaMemcpy(a, ha.data(), bytes1, cudaMemcpyHostToDevice)); CK(cudaMemcpy(b, hb.data(), bytes1, cudaMemcpyHostToDevice));
  // One arena for the padded placements: a, b, o each followed by `pad` bytes.
  const size_t maxPad = size_t(2) << 20;
  char* arena; CK(cudaMalloc(&arena, 3 * (bytes1 + maxPad)));
  auto placed = [&](size_t pad, int k) { return (float4*)(arena + k * (bytes1 + pad)); };
  fillKernel<<<1024, 256>>>((float*)arena, 3 * (bytes1 + maxPad) / 4);
  CK(cudaGetLastError());

  const double rw = 3.0 * bytes1;
  std::vector<Variant> vs;
  vs.push_back({"read2", 2.0 * bytes1, [&] { read2Kernel<<<grid, kBlock>>>((const float4*)a, (const float4*)b, partial, n4); }, {}});
  vs.push_back({"write1", 1.0 * bytes1, [&] { write1Kernel<<<grid, kBlock>>>((float4*)o, n4, 1.5f); }, {}});
  vs.push_back({"copy", 2.0 * bytes1, [&] { copyKernel<<<grid, kBlock>>>((const float4*)a, (float4*)o, n4); }, {}});
  vs.push_back({"base", rw, [&] { fmaKernel<0><<<grid, kBlock>>>((const float4*)a, (const float4*)b, (float4*)o, n4); }, {}});
  vs.push_back({"l2_128", rw, [&] { fmaKernel<1><<<grid, kBlock>>>((const float4*)a, (const float4*)b, (float4*)o, n4); }, {}});
  vs.push_back({"l2_256", rw, [&] { fmaKernel<2><<<grid, kBlock>>>((const float4*)a, (const float4*)b, (float4*)o, n4); }, {}});
  vs.push_back({"evict", rw, [&] { fmaKernel<3><<<grid, kBlock>>>((const float4*)a, (const float4*)b, (float4*)o, n4); }, {}});
  for (size_t padK : {0, 4, 68, 1028, 2048}) {
    const size_t pad = padK << 10;
    vs.push_back({"pad_" + std::to_string(padK), rw, [&, pad] {
      fmaKernel<0><<<grid, kBlock>>>(placed(pad, 0), placed(pad, 1), placed(pad, 2), n4); }, {}});
  }
#ifdef TG_CHAIN_CU
  static_assert(TgBody::kNumel == 64u << 20, "build the chain source for 64M elements");
  vs.push_back({"tgchain", rw, [&] { TG_NAME<<<grid, TG_BLOCK>>>(TgBody{a, b, o}); }, {}});
  vs.push_back({"tgchain/ev", rw, [&] { TG_NAME<<<grid, TG_BLOCK>>>(TgBody{a, b, o}); }, true});
  // The same kernel as a one-node CUDA graph, launched per call as tg's jit does.
  cudaStream_t cap;
  CK(cudaStreamCreateWithFlags(&cap, cudaStreamNonBlocking));
  cudaGraph_t g;
  cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(cap, cudaStreamCaptureModeGlobal));
  TG_NAME<<<grid, TG_BLOCK, 0, cap>>>(TgBody{a, b, o});
  CK(cudaStreamEndCapture(cap, &g));
  CK(cudaGraphInstantiate(&ge, g, 0));
  vs.push_back({"tgchain/graph", rw, [&] { CK(cudaGraphLaunch(ge, 0)); }, {}});
  vs.push_back({"tgchain/graph/ev", rw, [&] { CK(cudaGraphLaunch(ge, 0)); }, true});
#endif
  vs.push_back({"base/ev", rw, [&] { fmaKernel<0><<<grid, kBlock>>>((const float4*)a, (const float4*)b, (float4*)o, n4); }, true});

  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  const int perBatch = 20;
  for (auto& v : vs) for (int i = 0; i < 3; ++i) v.launch();
  CK(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> starts(perBatch), ends(perBatch);
  for (int i = 0; i < perBatch; ++i) { CK(cudaEventCreate(&starts[i])); CK(cudaEventCreate(&ends[i])); }
  for (int r = 0; r < rounds; ++r)
    for (auto& v : vs) {
      if (v.perCall) {  // tgbench::medianUs: event pairs back to back, median of the pairs
        CK(cudaDeviceSynchronize());
        for (int i = 0; i < perBatch; ++i) { CK(cudaEventRecord(starts[i])); v.launch(); CK(cudaEventRecord(ends[i])); }
        CK(cudaEventSynchronize(ends[perBatch - 1]));
        std::vector<float> t;
        for (int i = 0; i < perBatch; ++i) { float ms; CK(cudaEventElapsedTime(&ms, starts[i], ends[i])); t.push_back(ms * 1000); }
        std::sort(t.begin(), t.end());
        v.batches.push_back(t[t.size() / 2]);
        continue;
      }
      v.launch();
      CK(cudaEventRecord(e0));
      for (int i = 0; i < perBatch; ++i) v.launch();
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
      v.batches.push_back(ms * 1000 / perBatch);
    }
  CK(cudaGetLastError());

  // Check base and every hint variant against the host (FMA contraction: allow 1 ulp-ish).
  auto checkOut = [&](const float4* out) {
    std::vector<float> ho(n);
    CK(cudaMemcpy(ho.data(), out, bytes1, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
      const double ref = (double)ha[i] * hb[i] + ha[i];
      if (std::abs(ho[i] - ref) > 1e-6 * (1 + std::abs(ref))) ++bad;
    }
    return bad;
  };
  std::printf("%-17s %9s %9s %9s %8s\n", "variant", "min_us", "med_us", "max_us", "GB/s");
  for (auto& v : vs) {
    std::vector<float> t = v.batches;
    std::sort(t.begin(), t.end());
    std::printf("%-17s %9.1f %9.1f %9.1f %8.0f\n", v.name.c_str(), t.front(), t[t.size() / 2], t.back(), v.bytes / t[t.size() / 2] / 1e3);
  }
  size_t bad = 0;
  for (int h = 0; h < 4; ++h) {
    CK(cudaMemset(o, 0, bytes1));
    if (h == 0) fmaKernel<0><<<grid, kBlock>>>((const float4*)a, (const float4*)b, (float4*)o, n4);
    if (h == 1) fmaKernel<1><<<grid, kBlock>>>((const float4*)a, (const float4*)b, (float4*)o, n4);
    if (h == 2) fmaKernel<2><<<grid, kBlock>>>((const float4*)a, (const float4*)b, (float4*)o, n4);
    if (h == 3) fmaKernel<3><<<grid, kBlock>>>((const float4*)a, (const float4*)b, (float4*)o, n4);
    bad += checkOut((const float4*)o);
  }
  std::printf("check: %zu wrong elements over the 4 hint variants\n", bad);
  return bad != 0;
}
