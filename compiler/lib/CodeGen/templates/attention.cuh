// ---- Attention kernel for a few query rows per head (compiler/lib/CodeGen/templates/attention.cuh) ----
// softmax(score(q @ k^T)) @ v for one batch (a key/value head and the query rows that use it)
// per cluster of TG_CLUSTER blocks (blockIdx.y: the batch); block c of the cluster takes keys
// [c * TG_SHARE, min(kS, (c + 1) * TG_SHARE)). The emitter (EmitAttention.cpp) defines TG_NAME,
// TG_THREADS (256 or 512), TG_CLUSTER, TG_SHARE, TG_LANES, TG_STAGED and `struct TgBody`:
//   kBatch, kM, kS, kD, kDv   the problem (q [kM, kD], keys [kS, kD], values [kS, kDv] a batch)
//   ElemK / ElemV, cvtK / cvtV the keys' and values' storage type and its f32 value;
//   kVecK / kVecV              their elements in 16 bytes (1: element loads)
//   keys(b) / values(b)        batch b's rows (key s at keys(b) + s * kD)
//   q(b, m, d)                 a query element, as f32
//   score(b, m, s, acc)        the fused ops between q @ k^T and the softmax, on acc = q . k
//   prob(b, m, s, p)           the fused ops between the softmax and the product with v
//   store(b, m, d, v)          writes element (m, d) of the result
//   expo(x), divide(a, b)      the softmax's exp and division, as the unfused kernels compute them
//   aligned()                  whether keys and values start at 16-byte boundaries.
// With TG_STAGED (16-byte rows that fit), the block's keys and values are copied into shared
// memory with cp.async as it starts, the values' copy overlapping steps 1 and 2. Three steps,
// all in f32:
//  1. scores: groups of TG_LANES threads take one key at a time, their lanes splitting D in
//     chunks (16-byte loads, several keys' loads in flight before any math); the kM dot
//     products meet by shuffles, and score() gives the block's scores, kept in shared memory.
//  2. softmax: each row's max over the cluster (each block's max, read in block order through
//     distributed shared memory), exp(score - max) and its sum the same way; then
//     p = prob(exp / sum), rounded where the unfused graph rounds it; a row whose keys are
//     all masked (-inf) gets p = 0 (the result row 0, not NaN).
//  3. p @ v: each thread one row, one chunk of Dv and every kSplit-th of the block's keys; the
//     splits' sums and then the cluster's meet in a fixed order (deterministic), each block
//     storing its share.

#ifndef TG_KEY_BATCH
#define TG_KEY_BATCH 8
#endif

// The float at p in every block of the cluster, combined with `op` in block order; with no
// cluster, this block's. Between the barriers that order the writes and these reads.
template <typename Op>
__device__ __forceinline__ float tg_attention_fold(const float* p, Op op) {
#if TG_CLUSTER > 1
  float v = tg_ld_cluster(p, 0);
#pragma unroll
  for (unsigned c = 1; c < TG_CLUSTER; ++c) v = op(v, tg_ld_cluster(p, c));
  return v;
#else
  (void)op;
  return *p;
#endif
}
__device__ __forceinline__ void tg_attention_sync() {
#if TG_CLUSTER > 1
  tg_cluster_sync();
#else
  __syncthreads();
#endif
}

template <int kV, typename E, typename Cvt>
__device__ __forceinline__ void tg_attention_load(const E* p, float (&out)[kV], Cvt cvt) {
  if constexpr (kV == 1) {
    out[0] = cvt(p[0]);
  } else {
    E raw[kV];
    tg_load_vec(p, raw);
#pragma unroll
    for (int v = 0; v < kV; ++v) out[v] = cvt(raw[v]);
  }
}

// Shared memory, declared once for both instantiations: q, the block's scores, the rows'
// statistics, the partial p @ v and, with TG_STAGED, the block's keys and values (copied in
// with cp.async as the kernel starts, so that their one trip from memory overlaps the rest).
struct TgAttentionShared {
  float qs[TgBody::kM][TgBody::kD];
  float sc[TgBody::kM][TG_SHARE];
  float rowMax[TgBody::kM], rowSum[TgBody::kM];
  float part[TgBody::kM][TgBody::kDv];
#if TG_STAGED
  alignas(16) TgBody::ElemK keys[TG_SHARE * TgBody::kD];
  alignas(16) TgBody::ElemV values[TG_SHARE * TgBody::kDv];
#endif
};

template <bool kVector>
__device__ __forceinline__ void tg_attention(const TgBody& body, TgAttentionShared& sh) {
  constexpr int kM = (int)TgBody::kM;
  constexpr int kD = (int)TgBody::kD, kDv = (int)TgBody::kDv;
  constexpr int kVK = kVector ? TgBody::kVecK : 1, kVV = kVector ? TgBody::kVecV : 1;
  constexpr int kWarps = TG_THREADS / 32;
  constexpr bool kStaged = kVector && TG_STAGED;
  auto& qs = sh.qs;
  auto& sc = sh.sc;
  auto& rowMax = sh.rowMax;
  auto& rowSum = sh.rowSum;
  auto& part = sh.part;
  const long long b = blockIdx.y;
#if TG_CLUSTER > 1
  const unsigned rank = tg_cluster_rank();
#else
  const unsigned rank = 0;
#endif
  const long long s0 = (long long)rank * TG_SHARE;
  const int n = s0 >= TgBody::kS ? 0 : (int)(TgBody::kS - s0 < TG_SHARE ? TgBody::kS - s0 : TG_SHARE);
  const int warp = threadIdx.x / 32, lane32 = threadIdx.x % 32;
  const TgBody::ElemK* kb = body.keys(b) + s0 * kD;
  const TgBody::ElemV* vb = body.values(b) + s0 * kDv;
#if TG_STAGED
  if constexpr (kStaged) {  // two groups: the keys, then the values
    constexpr int kKChunks = kD * (int)sizeof(TgBody::ElemK) / 16, kVChunks = kDv * (int)sizeof(TgBody::ElemV) / 16;
    for (int c = threadIdx.x; c < n * kKChunks; c += TG_THREADS)
      tg_cp_async16(tg_smem_addr(reinterpret_cast<unsigned char*>(sh.keys) + c * 16),
                    reinterpret_cast<const unsigned char*>(kb) + c * 16, true);
    tg_cp_async_commit();
    for (int c = threadIdx.x; c < n * kVChunks; c += TG_THREADS)
      tg_cp_async16(tg_smem_addr(reinterpret_cast<unsigned char*>(sh.values) + c * 16),
                    reinterpret_cast<const unsigned char*>(vb) + c * 16, true);
    tg_cp_async_commit();
    kb = sh.keys;
    vb = sh.values;
  }
#endif

  for (int e = threadIdx.x; e < kM * kD; e += TG_THREADS) qs[e / kD][e % kD] = body.q(b, e / kD, e % kD);
#if TG_STAGED
  if constexpr (kStaged) tg_cp_async_wait<1>();
#endif
  __syncthreads();

  // 1. Scores. A warp holds 32 / TG_LANES groups; every lane of a warp runs the same
  // iterations (a group past the block's keys computes nothing), so the shuffles are whole.
  {
    constexpr int kGroupsPerWarp = 32 / TG_LANES, kGroups = TG_THREADS / TG_LANES;
    constexpr int kChunks = kD / kVK;
    constexpr int kPerLane = (kChunks + TG_LANES - 1) / TG_LANES;
    const int lane = threadIdx.x % TG_LANES, group = threadIdx.x / TG_LANES;
    for (int base = warp * kGroupsPerWarp; base < n; base += kGroups * TG_KEY_BATCH) {
      float kv[TG_KEY_BATCH][kPerLane][kVK];
#pragma unroll
      for (int t = 0; t < TG_KEY_BATCH; ++t) {
        const int j = base + (group - warp * kGroupsPerWarp) + t * kGroups;
#pragma unroll
        for (int c = 0; c < kPerLane; ++c) {
          const int chunk = lane + c * TG_LANES;
          if (j < n && chunk < kChunks)
            tg_attention_load<kVK>(kb + (long long)j * kD + chunk * kVK, kv[t][c], TgBody::cvtK);
          else
#pragma unroll
            for (int v = 0; v < kVK; ++v) kv[t][c][v] = 0.0f;
        }
      }
#pragma unroll
      for (int t = 0; t < TG_KEY_BATCH; ++t) {
        const int j = base + (group - warp * kGroupsPerWarp) + t * kGroups;
        float acc[kM];
#pragma unroll
        for (int m = 0; m < kM; ++m) acc[m] = 0.0f;
#pragma unroll
        for (int c = 0; c < kPerLane; ++c) {
          const int chunk = lane + c * TG_LANES;
          if (chunk < kChunks)
#pragma unroll
            for (int m = 0; m < kM; ++m)
#pragma unroll
              for (int v = 0; v < kVK; ++v) acc[m] = fmaf(kv[t][c][v], qs[m][chunk * kVK + v], acc[m]);
        }
#pragma unroll
        for (int m = 0; m < kM; ++m)
#pragma unroll
          for (int off = TG_LANES / 2; off > 0; off /= 2) acc[m] += __shfl_xor_sync(0xffffffffu, acc[m], off);
        if (j < n)
#pragma unroll
          for (int m = 0; m < kM; ++m)
            if (m % TG_LANES == lane) sc[m][j] = body.score(b, m, s0 + j, acc[m]);
      }
    }
  }
  __syncthreads();

  // 2. Softmax over the cluster's keys: the max, then the sum of exp(score - max).
  for (int m = warp; m < kM; m += kWarps) {
    float mx = -__int_as_float(0x7f800000);
    for (int j = lane32; j < n; j += 32) mx = tg_maxf(mx, sc[m][j]);
#pragma unroll
    for (int off = 16; off > 0; off /= 2) mx = tg_maxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
    if (lane32 == 0) rowMax[m] = mx;
  }
  tg_attention_sync();
  for (int m = warp; m < kM; m += kWarps) {
    float mx = tg_attention_fold(&rowMax[m], [](float a, float c) { return tg_maxf(a, c); });
    if (mx == -__int_as_float(0x7f800000)) mx = 0.0f;  // every key masked: the exps are 0, not NaN
    float sum = 0.0f;
    for (int j = lane32; j < n; j += 32) {
      const float e = TgBody::expo(sc[m][j] - mx);
      sc[m][j] = e;
      sum += e;
    }
#pragma unroll
    for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
    if (lane32 == 0) rowSum[m] = sum;
  }
  tg_attention_sync();
  for (int m = warp; m < kM; m += kWarps) {
    const float sum = tg_attention_fold(&rowSum[m], [](float a, float c) { return a + c; });
    // A sum of 0: every key of the row masked, whose probabilities are 0 (the result row 0).
    for (int j = lane32; j < n; j += 32)
      sc[m][j] = body.prob(b, m, s0 + j, sum > 0.0f ? TgBody::divide(sc[m][j], sum) : 0.0f);
  }
#if TG_STAGED
  if constexpr (kStaged) tg_cp_async_wait<0>();
#endif
  __syncthreads();

  // 3. p @ v over the block's keys: thread (split, m, chunk of Dv) takes the keys j = split
  // (mod kSplit), several keys' loads in flight; the splits' sums are added in split order.
  {
    constexpr int kChunks = kDv / kVV, kItems = kM * kChunks;
    constexpr int kFree = TG_THREADS / kItems;
    constexpr int kSplit = kFree >= 8 ? 8 : kFree >= 4 ? 4 : kFree >= 2 ? 2 : 1;
    for (int w0 = 0; w0 < kItems * kSplit; w0 += TG_THREADS) {
      const int w = w0 + threadIdx.x, item = w % kItems, split = w / kItems;
      const int m = item / kChunks, chunk = item % kChunks;
      const bool live = w < kItems * kSplit;
      float acc[kVV];
#pragma unroll
      for (int v = 0; v < kVV; ++v) acc[v] = 0.0f;
      if (live)
        for (int j0 = split; j0 < n; j0 += kSplit * TG_KEY_BATCH) {
          float vv[TG_KEY_BATCH][kVV];
#pragma unroll
          for (int t = 0; t < TG_KEY_BATCH; ++t) {
            const int j = j0 + t * kSplit;
            if (j < n)
              tg_attention_load<kVV>(vb + (long long)j * kDv + chunk * kVV, vv[t], TgBody::cvtV);
            else
#pragma unroll
              for (int v = 0; v < kVV; ++v) vv[t][v] = 0.0f;
          }
#pragma unroll
          for (int t = 0; t < TG_KEY_BATCH; ++t) {
            const int j = j0 + t * kSplit;
            const float p = j < n ? sc[m][j] : 0.0f;
#pragma unroll
            for (int v = 0; v < kVV; ++v) acc[v] = fmaf(p, vv[t][v], acc[v]);
          }
        }
      // Split 0 writes, then each later split adds, in order (every thread reaches each barrier).
#pragma unroll
      for (int s = 0; s < kSplit; ++s) {
        if (live && split == s)
#pragma unroll
          for (int v = 0; v < kVV; ++v) part[m][chunk * kVV + v] = s == 0 ? acc[v] : part[m][chunk * kVV + v] + acc[v];
        if (kSplit > 1) __syncthreads();
      }
    }
  }
  tg_attention_sync();
  for (int e = rank * TG_THREADS + threadIdx.x; e < kM * kDv; e += TG_THREADS * TG_CLUSTER)
    body.store(b, e / kDv, e % kDv, tg_attention_fold(&part[e / kDv][e % kDv], [](float a, float c) { return a + c; }));
#if TG_CLUSTER > 1
  tg_cluster_sync();  // no block leaves while another still reads its shared memory
#endif
}

#if TG_CLUSTER > 1
extern "C" __global__ void __cluster_dims__(TG_CLUSTER, 1, 1) __launch_bounds__(TG_THREADS) TG_NAME(const TgBody body) {
#else
extern "C" __global__ void __launch_bounds__(TG_THREADS) TG_NAME(const TgBody body) {
#endif
  __shared__ __align__(16) TgAttentionShared sh;
  TG_GRID_PROLOGUE();
  if (TgBody::kVecK > 1 && body.aligned())
    tg_attention<true>(body, sh);
  else
    tg_attention<false>(body, sh);
}
