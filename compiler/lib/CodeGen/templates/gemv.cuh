// ---- Matrix-vector kernel skeleton (compiler/lib/CodeGen/templates/gemv.cuh) ----
// For matmuls bound by one operand's bytes (tg/Dialect/Gemv.h): kS <= 16 dot products with each
// of the kR rows of a matrix W whose rows are K-contiguous, per batch. The emitter defines
// TG_NAME, TG_THREADS (threads per block), TG_TPR (threads per row: a power of two dividing
// TG_THREADS), TG_RPG (rows each group of TG_TPR threads computes, reusing the vectors it
// loaded) and `struct TgBody`:
//   kR, kS, kK, kBatch    the problem; kVec the elements in 16 bytes;
//   Elem, cvt(e)          the operands' storage type and its f32 value;
//   w(b) / x(b)           batch b's matrix (row r at w(b) + r * kK) and vectors;
//   kXs, kXk              element (s, k) of the vectors is x(b)[s * kXs + k * kXk];
//   aligned()             whether both operands start at 16-byte boundaries;
//   out(b, s, r, v)       stores dot product s of row r through the fused epilogue.
// The threads of a group split K in chunks of kVec elements (16-byte loads, or one element
// when the shapes or the addresses are not aligned); their partial sums meet through warp
// shuffles and, for groups wider than a warp, shared memory. f32 accumulation.

// The vectors' chunk at k (kV elements each), as f32: x[s][v] = element (s, k + v).
template <int kV>
__device__ __forceinline__ void tg_gemv_vectors(const TgBody& body, const TgBody::Elem* xb, long long k,
                                                float (&x)[TgBody::kS][kV]) {
  using E = TgBody::Elem;
  if constexpr (kV == 1) {
#pragma unroll
    for (int s = 0; s < TgBody::kS; ++s) x[s][0] = TgBody::cvt(xb[s * TgBody::kXs + k * TgBody::kXk]);
  } else if constexpr (TgBody::kXk == 1) {  // each vector contiguous along K
#pragma unroll
    for (int s = 0; s < TgBody::kS; ++s) {
      E raw[kV];
      tg_load_vec(xb + s * TgBody::kXs + k, raw);
#pragma unroll
      for (int v = 0; v < kV; ++v) x[s][v] = TgBody::cvt(raw[v]);
    }
  } else {  // kXs == 1, kXk == kS: the chunk is kV * kS contiguous elements, k-major
    static_assert(kV > 1 && TgBody::kXs == 1 && TgBody::kXk == TgBody::kS, "vectors the emitter cannot load whole");
    E raw[kV * TgBody::kS];
    tg_load_vec(xb + k * TgBody::kS, raw);
#pragma unroll
    for (int v = 0; v < kV; ++v)
#pragma unroll
      for (int s = 0; s < TgBody::kS; ++s) x[s][v] = TgBody::cvt(raw[v * TgBody::kS + s]);
  }
  (void)body;
}

template <int kV>
__device__ __forceinline__ void tg_gemv(const TgBody& body) {
  using E = TgBody::Elem;
  constexpr int kGroups = TG_THREADS / TG_TPR;
  constexpr long long kChunks = (TgBody::kK + kV - 1) / kV;
  constexpr long long kIters = (kChunks + TG_TPR - 1) / TG_TPR;
  constexpr int kS = TgBody::kS;
  const int lane = threadIdx.x % TG_TPR, group = threadIdx.x / TG_TPR;
  const long long b = blockIdx.y;
  const long long r0 = ((long long)blockIdx.x * kGroups + group) * TG_RPG;
  const E* xb = body.x(b);
  const E* rows[TG_RPG];
#pragma unroll
  for (int i = 0; i < TG_RPG; ++i) {  // rows past the end read the last row; nothing stores them
    const long long r = r0 + i < TgBody::kR ? r0 + i : TgBody::kR - 1;
    rows[i] = body.w(b) + r * TgBody::kK;
  }
  float acc[TG_RPG][kS];
#pragma unroll
  for (int i = 0; i < TG_RPG; ++i)
#pragma unroll
    for (int s = 0; s < kS; ++s) acc[i][s] = 0.0f;
#pragma unroll 4
  for (long long it = 0; it < kIters; ++it) {
    const long long c = lane + it * TG_TPR;
    if (kChunks % TG_TPR != 0 && c >= kChunks) break;
    const long long k = c * kV;
    float w[TG_RPG][kV];
#pragma unroll
    for (int i = 0; i < TG_RPG; ++i) {
      E raw[kV];
      if constexpr (kV == 1)
        raw[0] = rows[i][k];
      else
        tg_load_vec(rows[i] + k, raw);
#pragma unroll
      for (int v = 0; v < kV; ++v) w[i][v] = TgBody::cvt(raw[v]);
    }
    float x[kS][kV];
    tg_gemv_vectors<kV>(body, xb, k, x);
#pragma unroll
    for (int v = 0; v < kV; ++v)
#pragma unroll
      for (int s = 0; s < kS; ++s)
#pragma unroll
        for (int i = 0; i < TG_RPG; ++i) acc[i][s] = fmaf(w[i][v], x[s][v], acc[i][s]);
  }
  // The group's lanes within a warp, then (groups wider than a warp) across its warps.
  constexpr int kWarpLanes = TG_TPR < 32 ? TG_TPR : 32;
#pragma unroll
  for (int i = 0; i < TG_RPG; ++i)
#pragma unroll
    for (int s = 0; s < kS; ++s)
#pragma unroll
      for (int off = kWarpLanes / 2; off > 0; off /= 2)
        acc[i][s] += __shfl_xor_sync(0xffffffffu, acc[i][s], off);
  if constexpr (TG_TPR <= 32) {
    if (lane == 0)
#pragma unroll
      for (int i = 0; i < TG_RPG; ++i)
        if (r0 + i < TgBody::kR)
#pragma unroll
          for (int s = 0; s < kS; ++s) body.out(b, s, r0 + i, acc[i][s]);
  } else {
    constexpr int kWarps = TG_THREADS / 32, kWarpsPerGroup = TG_TPR / 32;
    __shared__ float partial[kWarps][TG_RPG * kS];
    const int warp = threadIdx.x / 32;
    if (threadIdx.x % 32 == 0)
#pragma unroll
      for (int i = 0; i < TG_RPG; ++i)
#pragma unroll
        for (int s = 0; s < kS; ++s) partial[warp][i * kS + s] = acc[i][s];
    __syncthreads();
    for (int e = threadIdx.x; e < kGroups * TG_RPG * kS; e += TG_THREADS) {
      const int g = e / (TG_RPG * kS), i = e / kS % TG_RPG, s = e % kS;
      float sum = 0.0f;
#pragma unroll
      for (int q = 0; q < kWarpsPerGroup; ++q) sum += partial[g * kWarpsPerGroup + q][i * kS + s];
      const long long r = ((long long)blockIdx.x * kGroups + g) * TG_RPG + i;
      if (r < TgBody::kR) body.out(b, s, r, sum);
    }
  }
}

extern "C" __global__ void __launch_bounds__(TG_THREADS) TG_NAME(const TgBody body) {
  TG_GRID_PROLOGUE();
  if (TgBody::kVec > 1 && body.aligned())
    tg_gemv<TgBody::kVec>(body);
  else
    tg_gemv<1>(body);
}
