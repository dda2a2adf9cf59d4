// stream_probe.cu - issue 3 probe: can a 2-read/1-write f32 stream beat vectorised LDG/STG?
// Standalone (nvcc -arch=sm_90a -O3 -o stream_probe stream_probe.cu); runs on the H200 through
// the device tool. Compares, on the same 64M-element arrays in one process:
//   copy      float4 grid-stride copy (the roofline the benchmarks use, 1 read : 1 write)
//   ldg_uN    out = a * b + a, float4 grid-stride, N vector steps in flight per thread
//   bulk_sS   the same math through TMA 1-D bulk copies (cp.async.bulk) global -> shared ->
//             global, S stages per CTA, 2 CTAs per SM
// Prints the median of 30 timed runs (events) and the result check.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)

__global__ void copyKernel(const float4* __restrict__ a, float4* __restrict__ o, size_t n4) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) o[i] = a[i];
}

template <int U>
__global__ void ldgKernel(const float4* __restrict__ a, const float4* __restrict__ b, float4* __restrict__ o, size_t n4) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t base = (size_t)blockIdx.x * blockDim.x + threadIdx.x; base < n4; base += stride * U) {
    float4 x[U], y[U];
#pragma unroll
    for (int u = 0; u < U; ++u) if (base + u * stride < n4) { x[u] = __ldg(a + base + u * stride); y[u] = __ldg(b + base + u * stride); }
#pragma unroll
    for (int u = 0; u < U; ++u) if (base + u * stride < n4) {
      float4 r; r.x = x[u].x * y[u].x + x[u].x; r.y = x[u].y * y[u].y + x[u].y; r.z = x[u].z * y[u].z + x[u].z; r.w = x[u].w * y[u].w + x[u].w;
      o[base + u * stride] = r;
    }
  }
}

__device__ __forceinline__ unsigned smem(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

// Chunks of kChunk floats; CTA c takes chunks c, c + grid, ... Thread 0 drives the copies.
template <int S, int kChunk>
__global__ void __launch_bounds__(256) bulkKernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ o, size_t nChunks) {
  extern __shared__ __align__(128) unsigned char sm[];
  float* sa = (float*)sm;                 // [S][kChunk]
  float* sb = sa + S * kChunk;
  float* so = sb + S * kChunk;
  unsigned long long* full = (unsigned long long*)(so + S * kChunk);
  const unsigned bytes = kChunk * 4;
  size_t mine = nChunks > blockIdx.x ? (nChunks - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  auto issue = [&](size_t k) {
    int s = k % S;
    size_t chunk = blockIdx.x + k * gridDim.x;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem(&full[s])), "r"(2 * bytes));
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(smem(sa + s * kChunk)), "l"(a + chunk * kChunk), "r"(bytes), "r"(smem(&full[s])) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(smem(sb + s * kChunk)), "l"(b + chunk * kChunk), "r"(bytes), "r"(smem(&full[s])) : "memory");
  };
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&full[s])));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  if (threadIdx.x == 0) for (size_t k = 0; k < (size_t)S && k < mine; ++k) issue(k);
  for (size_t k = 0; k < mine; ++k) {
    int s = k % S;
    unsigned phase = (k / S) & 1;
    asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W; }" :: "r"(smem(&full[s])), "r"(phase) : "memory");
    // The store that last read so[s] was committed S groups ago: let at most S-1 be pending.
    if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group.read %0;" :: "n"(S - 1) : "memory");
    __syncthreads();
    for (int i = threadIdx.x * 4; i < kChunk; i += 256 * 4) {
      float4 x = *(float4*)(sa + s * kChunk + i), y = *(float4*)(sb + s * kChunk + i), r;
      r.x = x.x * y.x + x.x; r.y = x.y * y.y + x.y; r.z = x.z * y.z + x.z; r.w = x.w * y.w + x.w;
      *(float4*)(so + s * kChunk + i) = r;
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
      size_t chunk = blockIdx.x + k * gridDim.x;
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" :: "l"(o + chunk * kChunk), "r"(smem(so + s * kChunk)), "r"(bytes) : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      if (k + S < mine) issue(k + S);
    }
  }
  if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

template <class F>
float median(F launch) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int i = 0; i < 3; ++i) launch();
  std::vector<float> t;
  for (int i = 0; i < 30; ++i) {
    cudaEventRecord(e0); launch(); cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms * 1000);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  const size_t n = size_t(64) << 20, n4 = n / 4;
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  float *a, *b, *o, *big, *big2;
  CK(cudaMalloc(&a, n * 4)); CK(cudaMalloc(&b, n * 4)); CK(cudaMalloc(&o, n * 4));
  CK(cudaMalloc(&big, size_t(1) << 30)); CK(cudaMalloc(&big2, size_t(1) << 30));
  std::vector<float> ha(n), hb(n);
  for (size_t i = 0; i < n; ++i) { ha[i] = (float)((i * 2654435761u) % 1000) / 500.0f - 1; hb[i] = (float)((i * 40503u) % 777) / 300.0f - 1.3f; }
  CK(cudaMemcpy(a, ha.data(), n * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(b, hb.data(), n * 4, cudaMemcpyHostToDevice));
  CK(cudaMemset(big, 1, size_t(1) << 30));
  auto check = [&](const char* name, float us, double bytes) {
    std::vector<float> ho(n);
    CK(cudaMemcpy(ho.data(), o, n * 4, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) if (ho[i] != ha[i] * hb[i] + ha[i]) ++bad;
    std::printf("%-14s %8.1f us  %6.0f GB/s  bad=%zu\n", name, us, bytes / us / 1e3, bad);
    CK(cudaMemset(o, 0, n * 4));
  };
  float c = median([&] { copyKernel<<<sms * 8, 256>>>((const float4*)big, (float4*)big2, (size_t(1) << 30) / 16); });
  std::printf("%-14s %8.1f us  %6.0f GB/s (1 GiB copy)\n", "copy", c, 2.0 * (1 << 30) / c / 1e3);
  const double bytes = 3.0 * n * 4;
  for (int bps : {4, 8, 16}) {
    char name[32];
    std::snprintf(name, 32, "ldg_u2_b%d", bps);
    check(name, median([&] { ldgKernel<2><<<sms * bps, 256>>>((const float4*)a, (const float4*)b, (float4*)o, n4); }), bytes);
    std::snprintf(name, 32, "ldg_u4_b%d", bps);
    check(name, median([&] { ldgKernel<4><<<sms * bps, 256>>>((const float4*)a, (const float4*)b, (float4*)o, n4); }), bytes);
  }
  auto bulk = [&](auto kern, int S, int chunk, int ctasPerSm, const char* name) {
    size_t sh = size_t(S) * chunk * 4 * 3 + S * 8;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh));
    check(name, median([&] { kern<<<sms * ctasPerSm, 256, sh>>>(a, b, o, n / chunk); }), bytes);
  };
  bulk(bulkKernel<4, 2048>, 4, 2048, 2, "bulk_s4_8k_x2");
  bulk(bulkKernel<3, 2048>, 3, 2048, 3, "bulk_s3_8k_x3");
  bulk(bulkKernel<6, 1024>, 6, 1024, 3, "bulk_s6_4k_x3");
  bulk(bulkKernel<4, 4096>, 4, 4096, 1, "bulk_s4_16k_x1");
  bulk(bulkKernel<8, 1024>, 8, 1024, 2, "bulk_s8_4k_x2");
  c = median([&] { copyKernel<<<sms * 8, 256>>>((const float4*)big, (float4*)big2, (size_t(1) << 30) / 16); });
  std::printf("%-14s %8.1f us  %6.0f GB/s (1 GiB copy, again)\n", "copy", c, 2.0 * (1 << 30) / c / 1e3);
  return 0;
}
