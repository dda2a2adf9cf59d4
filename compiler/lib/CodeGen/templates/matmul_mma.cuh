// ---- mma.sync matmul skeleton (compiler/lib/CodeGen/templates/matmul_mma.cuh) ----
// sm_80 and newer. The emitter defines TG_NAME, the tile TG_BM x TG_BN x TG_BK (TG_BK * element
// size = 64 bytes), TG_STAGES, TG_WARPS_M x TG_WARPS_N warps, TG_TF32 (1: f32 operands
// multiplied as TF32 with m16n8k8; 0: 16-bit operands with m16n8k16), TG_F16 (1: f16, 0: bf16),
// TG_A_KMAJOR / TG_B_KMAJOR (1: the operand's rows in memory run along K; 0: along M resp. N),
// and above this line:
//   struct TgBody   kM, kN, kK, kBatch; kStrideA / kStrideB (elements from one batch of the
//                   operand to the next; 0 for an operand shared by every batch); opA(), opB()
//                   (the operands); store(b, m, n, v0, v1): the epilogue of elements (m, n)
//                   and (m, n + 1) (it checks the bounds)
//
// Each CTA computes one TG_BM x TG_BN tile of one batch (blockIdx.z). All threads copy the A
// and B tiles of one K slab into a ring of TG_STAGES shared-memory stages with 16-byte
// cp.async (src-size 0 zero-fills what lies outside the operands, so ragged M, N and K need
// no other care; plain loads when an operand's base is not 16-byte aligned), TG_STAGES - 1
// slabs ahead of the math; one __syncthreads per slab both publishes the landed slab and
// retires the one read before, whose stage is refilled next.
// Each warp owns a (TG_BM / TG_WARPS_M) x (TG_BN / TG_WARPS_N) sub-tile of f32 accumulators:
// it loads A and B fragments from shared memory (ldmatrix, .trans for MN-major 16-bit
// operands; 32-bit loads for MN-major TF32, which ldmatrix cannot transpose) and issues
// mma.sync per 16 x 8 piece. Shared memory rows are XOR-swizzled in 16-byte chunks so those
// loads hit 32 distinct banks. The epilogue goes from registers to global memory through
// TgBody::store, which applies the fused elementwise ops.

#if TG_TF32
constexpr int kTgElem = 4;   // bytes per element
constexpr int kTgMmaK = 8;   // K of one mma
#else
constexpr int kTgElem = 2;
constexpr int kTgMmaK = 16;
#endif
constexpr int kTgThreads = TG_WARPS_M * TG_WARPS_N * 32;
constexpr int kTgWarpM = TG_BM / TG_WARPS_M, kTgWarpN = TG_BN / TG_WARPS_N;
constexpr int kTgMI = kTgWarpM / 16, kTgNI = kTgWarpN / 8;  // mma pieces per warp
constexpr int kTgPerChunk = 16 / kTgElem;                    // elements per 16-byte chunk
constexpr int kTgAStageBytes = TG_BM * TG_BK * kTgElem, kTgBStageBytes = TG_BN * TG_BK * kTgElem;
static_assert(TG_BK * kTgElem == 64, "K slabs are 64 bytes (4 chunks per K-major row)");
static_assert(kTgWarpM % 16 == 0 && kTgWarpN % 16 == 0, "warp tiles are whole ldmatrix.x4 loads");

// An operand tile in one stage: kRows rows of kChunks 16-byte chunks. K-major: a row per M
// (or N) index, chunks along K; MN-major: a row per K index, chunks along M (or N).
template <bool kKMajor, int kMN>
struct TgTile {
  static constexpr int kRows = kKMajor ? kMN : TG_BK;
  static constexpr int kChunks = (kKMajor ? TG_BK : kMN) * kTgElem / 16;
  static_assert(kChunks == 4 || kChunks % 8 == 0, "the swizzle handles 64-byte or 128n-byte rows");
  // The TF32 MN-major fragments are read with 32-bit loads: lane (g, t) reads row t (and
  // t + 4), chunk g / 4 (of 8 columns).
  static constexpr bool kScalarReads = TG_TF32 && !kKMajor;

  // Byte offset of chunk c of row r. ldmatrix reads one chunk from each of 8 consecutive rows
  // (r & 7 = 0..7) per phase: XOR-ing the chunk with r & 7 (128-byte and longer rows) or with
  // (r >> 1) & 3 (64-byte rows: two per 128-byte bank line) puts those 8 chunks in distinct
  // banks. The TF32 scalar reads touch rows t = 0..3 at two neighbouring chunks each: XOR-ing
  // with 2 (r & 3) spreads those 8 chunks the same way.
  static __device__ __forceinline__ unsigned offset(int r, int c) {
    int x;
    if constexpr (kChunks == 4) x = (r >> 1) & 3;
    else if constexpr (kScalarReads) x = (r & 3) << 1;
    else x = r & 7;
    return (unsigned)(r * kChunks + (c ^ x)) * 16u;
  }
  // Byte offset of element (mn, k) of a TF32 MN-major tile.
  static __device__ __forceinline__ unsigned element(int mn, int k) {
    return offset(k, mn / kTgPerChunk) + (unsigned)(mn % kTgPerChunk) * kTgElem;
  }
};
typedef TgTile<TG_A_KMAJOR, TG_BM> TgTileA;
typedef TgTile<TG_B_KMAJOR, TG_BN> TgTileB;

// tg_smem_addr, tg_cp_async16, tg_cp_async_commit, tg_cp_async_wait: templates/async_copy.cuh.
// The same 16 bytes through registers, for an operand whose base address is not 16-byte
// aligned (the executor accepts any view of a buffer; tg's own buffers are aligned). Slower
// but synchronous, so the barriers that order the cp.async copies order it too.
__device__ __forceinline__ void tg_copy16_unaligned(unsigned dst, const unsigned char* src, bool valid) {
  unsigned w[4] = {0u, 0u, 0u, 0u};
  if (valid) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
#if TG_TF32
      w[i] = *reinterpret_cast<const unsigned*>(src + 4 * i);
#else
      const unsigned short* h = reinterpret_cast<const unsigned short*>(src + 4 * i);
      w[i] = (unsigned)h[0] | ((unsigned)h[1] << 16);
#endif
    }
  }
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(dst), "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3])
               : "memory");
}
__device__ __forceinline__ void tg_ldmatrix4(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr) : "memory");
}
__device__ __forceinline__ void tg_ldmatrix4_trans(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr) : "memory");
}
__device__ __forceinline__ unsigned tg_lds32(unsigned addr) {
  unsigned r;
  asm volatile("ld.shared.b32 %0, [%1];" : "=r"(r) : "r"(addr) : "memory");
  return r;
}
// f32 -> tf32, rounded to nearest (ties away), as the TF32 mma expects its inputs.
__device__ __forceinline__ unsigned tg_tf32(unsigned f32bits) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(__uint_as_float(f32bits)));
  return r;
}
// d += a * b for one 16 x 8 piece (mma fragment layouts of the PTX ISA).
__device__ __forceinline__ void tg_mma(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
#if TG_TF32
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
#elif TG_F16
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
#else
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
#endif
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Copies K slab `k0` of one operand tile (rows mn0.. of an operand with kMNExtent rows along
// M or N) to shared address `dst`; `src` is the operand of this batch, `aligned` whether it is
// 16-byte aligned. K-major operands are [MN][K] in memory, MN-major ones [K][MN]. The
// contiguous dim is a multiple of a chunk (tg-select-matmul checks it), so a chunk lies
// entirely inside or outside the operand.
template <typename Tile, bool kKMajor, long long kMNExtent>
__device__ __forceinline__ void tg_copy_slab(unsigned dst, const unsigned char* src, bool aligned, int mn0,
                                             int k0) {
  constexpr int kCopies = Tile::kRows * Tile::kChunks;
  static_assert(kCopies % kTgThreads == 0, "every thread copies the same number of chunks");
#pragma unroll
  for (int j = 0; j < kCopies / kTgThreads; ++j) {
    const int i = (int)threadIdx.x + j * kTgThreads;
    const int r = i / Tile::kChunks, c = i % Tile::kChunks;
    long long outer, inner, extent;  // element (outer, inner) of an [.][extent] array
    bool valid;
    if constexpr (kKMajor) {
      outer = mn0 + r, inner = k0 + c * kTgPerChunk, extent = TgBody::kK;
      valid = outer < kMNExtent && inner < TgBody::kK;
    } else {
      outer = k0 + r, inner = mn0 + c * kTgPerChunk, extent = kMNExtent;
      valid = outer < TgBody::kK && inner < kMNExtent;
    }
    const unsigned char* p = valid ? src + (outer * extent + inner) * kTgElem : src;
    if (aligned)
      tg_cp_async16(dst + Tile::offset(r, c), p, valid);
    else
      tg_copy16_unaligned(dst + Tile::offset(r, c), p, valid);
  }
}

// A fragments of K step ks for the warp's rows m0.. of the stage at `a`: fa[i] is the 16 x
// kTgMmaK piece i (a0..a3 in the mma's order: rows +0 / +8, K +0 / +kTgMmaK / 2).
__device__ __forceinline__ void tg_load_a(unsigned (&fa)[kTgMI][4], unsigned a, int m0, int ks, int lane) {
#pragma unroll
  for (int i = 0; i < kTgMI; ++i) {
#if TG_A_KMAJOR
    // Lanes 0-15 address rows 0-15 at K chunk 0 of the step, lanes 16-31 at chunk 1.
    tg_ldmatrix4(fa[i], a + TgTileA::offset(m0 + 16 * i + (lane & 15), 2 * ks + (lane >> 4)));
#elif !TG_TF32
    // Matrix q = lane / 8 holds rows +8 (q & 1), K +8 (q >> 1); its rows in memory run along K.
    const int q = lane >> 3;
    tg_ldmatrix4_trans(fa[i], a + TgTileA::offset(ks * 16 + (q >> 1) * 8 + (lane & 7),
                                                  (m0 + 16 * i + (q & 1) * 8) / kTgPerChunk));
#else
    const int g = lane >> 2, t = lane & 3, m = m0 + 16 * i + g, k = ks * 8 + t;
    fa[i][0] = tg_lds32(a + TgTileA::element(m, k));
    fa[i][1] = tg_lds32(a + TgTileA::element(m + 8, k));
    fa[i][2] = tg_lds32(a + TgTileA::element(m, k + 4));
    fa[i][3] = tg_lds32(a + TgTileA::element(m + 8, k + 4));
#endif
#if TG_TF32
#pragma unroll
    for (int r = 0; r < 4; ++r) fa[i][r] = tg_tf32(fa[i][r]);
#endif
  }
}

// B fragments of K step ks for the warp's columns n0..: fb[j] is the kTgMmaK x 8 piece j
// (b0, b1: K +0 / +kTgMmaK / 2). One ldmatrix.x4 loads two pieces.
__device__ __forceinline__ void tg_load_b(unsigned (&fb)[kTgNI][2], unsigned b, int n0, int ks, int lane) {
#if TG_B_KMAJOR || !TG_TF32
#pragma unroll
  for (int j = 0; j < kTgNI / 2; ++j) {
    // Matrix q = lane / 8 holds K +half (q & 1) of columns +8 (q >> 1): b0, b1 of piece 2j,
    // then of piece 2j + 1.
    const int q = lane >> 3;
    unsigned r[4];
#if TG_B_KMAJOR
    tg_ldmatrix4(r, b + TgTileB::offset(n0 + 16 * j + (q >> 1) * 8 + (lane & 7), 2 * ks + (q & 1)));
#else
    tg_ldmatrix4_trans(r, b + TgTileB::offset(ks * 16 + (q & 1) * 8 + (lane & 7),
                                              (n0 + 16 * j + (q >> 1) * 8) / kTgPerChunk));
#endif
    fb[2 * j][0] = r[0], fb[2 * j][1] = r[1], fb[2 * j + 1][0] = r[2], fb[2 * j + 1][1] = r[3];
  }
#else
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int j = 0; j < kTgNI; ++j) {
    fb[j][0] = tg_lds32(b + TgTileB::element(n0 + 8 * j + g, ks * 8 + t));
    fb[j][1] = tg_lds32(b + TgTileB::element(n0 + 8 * j + g, ks * 8 + t + 4));
  }
#endif
#if TG_TF32
#pragma unroll
  for (int j = 0; j < kTgNI; ++j) fb[j][0] = tg_tf32(fb[j][0]), fb[j][1] = tg_tf32(fb[j][1]);
#endif
}

// The tile (tm, tn) of block `t`: groups of 8 tile rows walked column by column, so that the
// CTAs running at one time share A and B tiles in L2.
__device__ __forceinline__ void tg_mma_tile_coords(int t, int& tm, int& tn) {
  constexpr int kTilesM = (int)((TgBody::kM + TG_BM - 1) / TG_BM);
  constexpr int kTilesN = (int)((TgBody::kN + TG_BN - 1) / TG_BN);
  constexpr int kGroup = 8, kPerGroup = kGroup * kTilesN;
  const int first = t / kPerGroup * kGroup;
  const int rows = kTilesM - first < kGroup ? kTilesM - first : kGroup;
  tm = first + t % kPerGroup % rows;
  tn = t % kPerGroup / rows;
}

// Two CTAs per SM where shared memory allows it (A100: 2 x 64 KiB): the 16-bit kernels fit
// 128 registers without spilling; the TF32 ones need about 155 (the conversions), so one.
constexpr int kTgMinBlocks = TG_TF32 ? 1 : 2;

extern "C" __global__ void __launch_bounds__(kTgThreads, kTgMinBlocks) TG_NAME(const TgBody body) {
  TG_GRID_PROLOGUE();
  extern __shared__ __align__(128) unsigned char tg_dynamic_smem[];
  const unsigned aBase = tg_smem_addr(tg_dynamic_smem), bBase = aBase + TG_STAGES * kTgAStageBytes;
  const int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;
  const int wm = warp / TG_WARPS_N * kTgWarpM, wn = warp % TG_WARPS_N * kTgWarpN;
  int tm, tn;
  tg_mma_tile_coords((int)blockIdx.x, tm, tn);
  const int m0 = tm * TG_BM, n0 = tn * TG_BN;
  const long long batch = blockIdx.z;
  const unsigned char* A = (const unsigned char*)body.opA() + batch * TgBody::kStrideA * kTgElem;
  const unsigned char* B = (const unsigned char*)body.opB() + batch * TgBody::kStrideB * kTgElem;
  const bool alignedA = ((unsigned long long)A & 15ull) == 0, alignedB = ((unsigned long long)B & 15ull) == 0;
  constexpr int kSlabs = (int)((TgBody::kK + TG_BK - 1) / TG_BK);
  constexpr int kSteps = TG_BK / kTgMmaK;

  // Slab kt goes to stage kt % TG_STAGES; every thread commits one group per slab (empty past
  // the last), so "slab kt has landed" is always "at most TG_STAGES - 2 groups in flight".
  auto copy = [&](int kt) {
    if (kt < kSlabs) {
      const int s = kt % TG_STAGES;
      tg_copy_slab<TgTileA, TG_A_KMAJOR, TgBody::kM>(aBase + s * kTgAStageBytes, A, alignedA, m0, kt * TG_BK);
      tg_copy_slab<TgTileB, TG_B_KMAJOR, TgBody::kN>(bBase + s * kTgBStageBytes, B, alignedB, n0, kt * TG_BK);
    }
    tg_cp_async_commit();
  };
#pragma unroll
  for (int kt = 0; kt < TG_STAGES - 1; ++kt) copy(kt);

  float acc[kTgMI][kTgNI][4];
#pragma unroll
  for (int i = 0; i < kTgMI; ++i)
#pragma unroll
    for (int j = 0; j < kTgNI; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.0f;

  for (int kt = 0; kt < kSlabs; ++kt) {
    tg_cp_async_wait<TG_STAGES - 2>();
    // Slab kt is visible to every thread, and every warp is done with slab kt - 1, whose stage
    // the next copy overwrites.
    __syncthreads();
    copy(kt + TG_STAGES - 1);
    const int s = kt % TG_STAGES;
    const unsigned a = aBase + s * kTgAStageBytes, b = bBase + s * kTgBStageBytes;
    // Fragments double-buffered across the K steps: step ks + 1 loads while step ks multiplies.
    unsigned fa[2][kTgMI][4], fb[2][kTgNI][2];
    tg_load_a(fa[0], a, wm, 0, lane);
    tg_load_b(fb[0], b, wn, 0, lane);
#pragma unroll
    for (int ks = 0; ks < kSteps; ++ks) {
      if (ks + 1 < kSteps) {
        tg_load_a(fa[(ks + 1) & 1], a, wm, ks + 1, lane);
        tg_load_b(fb[(ks + 1) & 1], b, wn, ks + 1, lane);
      }
#pragma unroll
      for (int i = 0; i < kTgMI; ++i)
#pragma unroll
        for (int j = 0; j < kTgNI; ++j) tg_mma(acc[i][j], fa[ks & 1][i], fb[ks & 1][j]);
    }
  }
  tg_cp_async_wait<0>();

  // Epilogue. mma C fragment: lane (g, t) = (lane / 4, lane % 4) holds rows g and g + 8 of each
  // 16 x 8 piece, at columns 2t and 2t + 1.
  const int row = m0 + wm + lane / 4, col = n0 + wn + 2 * (lane % 4);
#pragma unroll
  for (int i = 0; i < kTgMI; ++i)
#pragma unroll
    for (int j = 0; j < kTgNI; ++j) {
      body.store(batch, row + 16 * i, col + 8 * j, acc[i][j][0], acc[i][j][1]);
      body.store(batch, row + 16 * i + 8, col + 8 * j, acc[i][j][2], acc[i][j][3]);
    }
}
