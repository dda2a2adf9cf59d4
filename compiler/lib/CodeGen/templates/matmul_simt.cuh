// ---- SIMT matmul kernel skeleton (compiler/lib/CodeGen/templates/matmul_simt.cuh) ----
// The emitter defines TG_NAME, TG_BM, TG_BN (multiples of 16), TG_BK and `struct TgBody`:
//   kM, kN, kK, kBatch   the problem; loadA(b, m, k) / loadB(b, k, n) return f32 (0 outside),
//   store(b, m, n, acc)  converts and writes one result.
// 256 threads; each computes a (TG_BM / 16) x (TG_BN / 16) patch from shared-memory tiles.
// f32 accumulation on the CUDA cores: the portable baseline (tensor-core paths come later).
extern "C" __global__ void __launch_bounds__(256) TG_NAME(const TgBody body) {
  TG_GRID_PROLOGUE();
  constexpr int TM = TG_BM / 16, TN = TG_BN / 16;
  __shared__ float As[TG_BK][TG_BM + 1];
  __shared__ float Bs[TG_BK][TG_BN + 1];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const long long b = blockIdx.z;
  const long long m0 = (long long)blockIdx.y * TG_BM, n0 = (long long)blockIdx.x * TG_BN;
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
  for (long long k0 = 0; k0 < TgBody::kK; k0 += TG_BK) {
    for (int e = threadIdx.x; e < TG_BK * TG_BM; e += 256) {
      int kk = e % TG_BK, mm = e / TG_BK;  // consecutive threads: consecutive k
      As[kk][mm] = body.loadA(b, m0 + mm, k0 + kk);
    }
    for (int e = threadIdx.x; e < TG_BK * TG_BN; e += 256) {
      int kk = e / TG_BN, nn = e % TG_BN;
      Bs[kk][nn] = body.loadB(b, k0 + kk, n0 + nn);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < TG_BK; ++kk) {
      float a[TM], bv[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[kk][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < TN; ++j) bv[j] = Bs[kk][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], bv[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      long long m = m0 + ty + 16 * i, n = n0 + tx + 16 * j;
      if (m < TgBody::kM && n < TgBody::kN) body.store(b, m, n, acc[i][j]);
    }
}
