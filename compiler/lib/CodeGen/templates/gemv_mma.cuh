// ---- Matrix-vector kernel on tensor cores (compiler/lib/CodeGen/templates/gemv_mma.cuh) ----
// The gemv problem of templates/gemv.cuh (the same TgBody) for 3 to 16 vectors, where the
// CUDA cores' multiply-adds would bound the kernel: mma.sync m16n8k16 computes 16 rows of a
// bf16/f16 W against 8 vectors at a time. The emitter defines TG_NAME, TG_WARPS (warps per
// block, splitting K), TG_TILES (8-vector tiles: 1 or 2) and TG_F16. Each block computes 16
// rows of one batch.
//
// Fragments come straight from global memory in 16-byte loads. The dot product does not
// depend on the order of k, so each lane loads the 16 bytes at k = 4 * kPer * step + kPer * t
// (t = lane % 4) of row g and row g + 8 (g = lane / 4) and of vector g, and hands the first
// half to one mma and the second half to another as if they were the k positions the
// fragment layout assigns to it (2t, 2t + 1 | 2t + 8, 2t + 9). A and B use the same
// assignment, so every product pairs the same k. Partial sums of the warps
// meet in shared memory; the first warp stores them through the fused epilogue.
// Two k-halves of one 16-byte chunk of rows g, g + 8 (a0, a1) against vector chunk b.
__device__ __forceinline__ void tg_gemv_mma(float (&c)[4], const uint4& a0, const uint4& a1, const uint4& b) {
#if TG_F16
#define TG_GEMV_MMA "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
#else
#define TG_GEMV_MMA "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
#endif
  asm volatile(TG_GEMV_MMA " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a0.x), "r"(a1.x), "r"(a0.y), "r"(a1.y), "r"(b.x), "r"(b.y));
  asm volatile(TG_GEMV_MMA " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a0.z), "r"(a1.z), "r"(a0.w), "r"(a1.w), "r"(b.z), "r"(b.w));
#undef TG_GEMV_MMA
}

// kPer consecutive elements p[0], p[stride], ... as 16 bytes: one load when contiguous and
// aligned, else element by element.
template <long long kStride>
__device__ __forceinline__ uint4 tg_gemv_chunk(const TgBody::Elem* p, bool aligned) {
  constexpr int kPer = 16 / sizeof(TgBody::Elem);
  if (kStride == 1 && aligned) return tg_ld16(reinterpret_cast<const uint4*>(p));
  union {
    uint4 raw;
    TgBody::Elem e[kPer];
  } u;
#pragma unroll
  for (int i = 0; i < kPer; ++i) u.e[i] = p[i * kStride];
  return u.raw;
}

extern "C" __global__ void __launch_bounds__(TG_WARPS * 32) TG_NAME(const TgBody body) {
  TG_GRID_PROLOGUE();
  using E = TgBody::Elem;
  constexpr int kPer = 16 / sizeof(E);
  constexpr long long kStep = 4 * kPer;  // K a warp covers per step
  constexpr long long kSteps = (TgBody::kK + kStep - 1) / kStep;
  constexpr long long kPerWarp = (kSteps + TG_WARPS - 1) / TG_WARPS;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, t = lane % 4;
  const long long b = blockIdx.y, r0 = (long long)blockIdx.x * 16;
  const bool aligned = TgBody::kVec > 1 && body.aligned();  // kVec 1: strides not in 16-byte units
  const E* w = body.w(b);
  const E* xb = body.x(b);
  const E* rowA = w + (r0 + g < TgBody::kR ? r0 + g : TgBody::kR - 1) * TgBody::kK;
  const E* rowB = w + (r0 + g + 8 < TgBody::kR ? r0 + g + 8 : TgBody::kR - 1) * TgBody::kK;
  float c[TG_TILES][4];
#pragma unroll
  for (int j = 0; j < TG_TILES; ++j) c[j][0] = c[j][1] = c[j][2] = c[j][3] = 0.0f;
  // The warp's steps in groups of kGroup: every load of a group is issued before its mmas, so
  // that each warp keeps kGroup KB of the matrix in flight (a step past the warp's share, or
  // past K, loads zeros).
  constexpr int kGroup = 4;
  const long long first = warp * kPerWarp;
  const uint4 zero = make_uint4(0u, 0u, 0u, 0u);
#pragma unroll 1
  for (long long s0 = 0; s0 < kPerWarp; s0 += kGroup) {
    uint4 a0[kGroup], a1[kGroup], x[kGroup][TG_TILES];
#pragma unroll
    for (int u = 0; u < kGroup; ++u) {
      const long long k = (first + s0 + u) * kStep + t * kPer;
      // kK is a multiple of kPer: a chunk is all in or all out.
      const bool inside = s0 + u < kPerWarp && k < TgBody::kK;
      a0[u] = inside ? tg_gemv_chunk<1>(rowA + k, aligned) : zero;
      a1[u] = inside ? tg_gemv_chunk<1>(rowB + k, aligned) : zero;
#pragma unroll
      for (int j = 0; j < TG_TILES; ++j) {
        const int s = j * 8 + g;
        x[u][j] = inside && s < TgBody::kS ? tg_gemv_chunk<TgBody::kXk>(xb + s * TgBody::kXs + k * TgBody::kXk, aligned)
                                          : zero;
      }
    }
#pragma unroll
    for (int u = 0; u < kGroup; ++u)
#pragma unroll
      for (int j = 0; j < TG_TILES; ++j) tg_gemv_mma(c[j], a0[u], a1[u], x[u][j]);
  }
  // c[j] holds rows g and g + 8, vectors j * 8 + 2t and + 1, of this warp's share of K.
  __shared__ float partial[TG_WARPS][TG_TILES][4][32];
#pragma unroll
  for (int j = 0; j < TG_TILES; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) partial[warp][j][e][lane] = c[j][e];
  __syncthreads();
  if (warp != 0) return;
#pragma unroll
  for (int j = 0; j < TG_TILES; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      float sum = 0.0f;
#pragma unroll
      for (int q = 0; q < TG_WARPS; ++q) sum += partial[q][j][e][lane];
      const long long r = r0 + g + (e >= 2 ? 8 : 0);
      const int s = j * 8 + 2 * t + (e & 1);
      if (r < TgBody::kR && s < TgBody::kS) body.out(b, s, r, sum);
    }
}
