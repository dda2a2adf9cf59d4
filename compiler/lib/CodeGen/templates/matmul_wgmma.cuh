// ---- Hopper tensor-core matmul skeleton (compiler/lib/CodeGen/templates/matmul_wgmma.cuh) ----
// sm_90a only. The emitter defines TG_NAME, TG_ESIZE (operand bytes: 2 for bf16/f16, 4 for f32
// read as TF32), the tile TG_BM (128) x TG_BN (64..256) x TG_BK (128 bytes of K: 64 two-byte or
// 32 four-byte elements), TG_STAGES, TG_PINGPONG (0: cooperative, 1: ping-pong), TG_A_KMAJOR /
// TG_B_KMAJOR (1: the operand's rows in memory run along K; 0: along M resp. N, read with
// wgmma's transpose, which only 2-byte operands have),
// TG_RANK_A / TG_RANK_B (3 when the operand has a batch dim, else 2), and above this line
// templates/tma.cuh (the TMA, mbarrier and descriptor helpers) and:
//   struct TgBody   kN, kK, kTilesN; rowsM() and batches() (constants, or over dynamic dims the
//                   kernel's size arguments); store(b, m, n, v0, v1): the epilogue
//                   of elements (m, n) and (m, n + 1) (it checks the bounds); with TG_TMA_STORE,
//                   pair<kCheck>(b, m, n, v0, v1): the same two results packed for staging
//                   (pair<false> for tiles inside the bounds: no checks)
//   tg_wgmma(d, descA, descB, accumulate): one wgmma.mma_async m64 x TG_BN x 32 bytes of K
//                   (k16 for 2-byte operands, k8 for TF32) into the TG_BN / 2 f32 accumulators
//                   d of each thread of the warpgroup
//
// Each CTA computes TG_BM x TG_BN tiles with three warpgroups. Warpgroup 0 is the producer:
// one thread issues TMA copies (cp.async.bulk.tensor) of A and B tiles into a ring of
// TG_STAGES shared-memory stages, each guarded by two mbarriers: `full` (the copies landed:
// transaction bytes) and `empty` (its readers are done). Warpgroups 1 and 2 are consumers
// (TG_PINGPONG picks how they share the tiles, see the kernel): each multiplies with wgmma
// straight from shared memory (128-byte swizzle, the layout TMA writes) and keeps one wgmma
// batch in flight. setmaxnreg moves registers from the producer to the consumers'
// accumulators. The epilogue goes from registers to global memory through TgBody, which
// applies the fused elementwise ops. TMA zero-fills reads outside the operands, so ragged M,
// N and K edges need no predication in the main loop; stores are predicated (TMA stores clip).

struct TgMaps {
  TgTensorMap a, b;
#if TG_TMA_STORE
  TgTensorMap c;  // the result, stored from shared memory
#endif
};

#ifndef TG_TMA_STORE
#define TG_TMA_STORE 0
#endif
#ifndef TG_ESIZE
#define TG_ESIZE 2
#endif
static_assert(TG_BK * TG_ESIZE == 128, "a k-block is one 128-byte swizzled row of K");
static_assert(TG_ESIZE == 2 || (TG_A_KMAJOR && TG_B_KMAJOR), "wgmma transposes only 2-byte operands");
constexpr int kTgAStageBytes = TG_BM * TG_BK * TG_ESIZE;
// TMA-store epilogue: per consumer, two 64 x 64 buffers of 2-byte results (128-byte swizzle).
constexpr int kTgCBufBytes = 64 * 64 * 2;
constexpr int kTgCBytes = TG_TMA_STORE ? 2 * 2 * kTgCBufBytes : 0;
constexpr int kTgBStageBytes = TG_BN * TG_BK * TG_ESIZE;
#ifndef TG_GROUP_M
#define TG_GROUP_M 8
#endif
constexpr int kTgGroupM = TG_GROUP_M;  // tiles are visited in groups of tile rows: B tiles stay in L2

// The tile of linear index `tile` of a problem of `tilesM` tile rows: batch-major, then groups
// of kTgGroupM tile rows walked column by column, so that consecutive CTAs share B tiles in L2.
__device__ __forceinline__ void tg_tile_coords(int tilesM, int tile, int& m0, int& n0, int& batch) {
  const int perBatch = tilesM * (int)TgBody::kTilesN;
  batch = tile / perBatch;
  tile %= perBatch;
  const int perGroup = kTgGroupM * (int)TgBody::kTilesN;
  const int firstM = tile / perGroup * kTgGroupM;
  const int groupRows = tilesM - firstM < kTgGroupM ? tilesM - firstM : kTgGroupM;
  m0 = (firstM + tile % perGroup % groupRows) * TG_BM;
  n0 = tile % perGroup / groupRows * TG_BN;
}

#ifndef TG_PINGPONG
#define TG_PINGPONG 0
#endif

#if TG_TMA_STORE
// The packed results of chunk q (columns [64 q, 64 q + 64) of the tile) of one thread: rows
// `row` and `row` + 8, column pairs from `col` in steps of 8.
template <bool kCheck>
__device__ __forceinline__ void tg_chunk_values(const TgBody& body, const float (&d)[TG_BN / 2], int q, int batch,
                                                int row, int col, unsigned (&packed)[16]) {
#pragma unroll
  for (int jj = 0; jj < 8; ++jj) {
    const int j = 8 * q + jj;
    packed[2 * jj] = body.template pair<kCheck>(batch, row, col + 8 * j, d[4 * j], d[4 * j + 1]);
    packed[2 * jj + 1] = body.template pair<kCheck>(batch, row + 8, col + 8 * j, d[4 * j + 2], d[4 * j + 3]);
  }
}

// The epilogue of 64 rows [mRow, mRow + 64) x TG_BN columns from n0, held in the accumulators
// `d` of one warpgroup (thread t), through the warpgroup's two shared buffers at `bufs` and TMA.
// Accumulator layout of wgmma m64nNk16 (f32): thread t holds, for each 8-column block j, rows
// r and r + 8 (r = 16 (t / 32) + (t % 32) / 4) at columns 8 j + 2 (t % 4) and the next one.
// Each 64 x 64 chunk goes to a buffer in the 128-byte swizzled layout (conflict-free: rows
// r..r+7 land in different 16-byte columns), then one thread hands it to TMA. The stores drain
// while the next mainloop runs; a buffer is rewritten only after its previous store has read
// it (`chunk` counts this warpgroup's chunks, so the buffers alternate across calls too).
__device__ __forceinline__ void tg_epilogue_tma(const TgBody& body, const TgMaps& maps, const float (&d)[TG_BN / 2],
                                                int batch, int mRow, int n0, int t, unsigned bufs, int barId,
                                                unsigned& chunk) {
  const int r0 = 16 * (t / 32) + (t % 32) / 4;
  const int row = mRow + r0, col = n0 + 2 * (t % 4);
  const bool full = mRow + 64 <= body.rowsM() && n0 + TG_BN <= TgBody::kN;  // no bounds to check
#pragma unroll
  for (int q = 0; q < TG_BN / 64; ++q) {
    const unsigned buf = bufs + (chunk++ & 1u) * kTgCBufBytes;
    if (t == 0) asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
    asm volatile("bar.sync %0, 128;" ::"r"(barId) : "memory");
    // All of the chunk's values first (their epilogue loads, a bias say, can then be in
    // flight together), then the shared-memory stores.
    unsigned packed[16];
    if (full)
      tg_chunk_values<false>(body, d, q, batch, row, col, packed);
    else
      tg_chunk_values<true>(body, d, q, batch, row, col, packed);
#pragma unroll
    for (int jj = 0; jj < 8; ++jj) {
      const unsigned lo = buf + r0 * 128 + ((jj ^ (r0 & 7)) << 4) + 4 * (t % 4);
      const unsigned hi = buf + (r0 + 8) * 128 + ((jj ^ ((r0 + 8) & 7)) << 4) + 4 * (t % 4);
      asm volatile("st.shared.u32 [%0], %1;" ::"r"(lo), "r"(packed[2 * jj]));
      asm volatile("st.shared.u32 [%0], %1;" ::"r"(hi), "r"(packed[2 * jj + 1]));
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("bar.sync %0, 128;" ::"r"(barId) : "memory");
    if (t == 0) {
      tg_tma_store(&maps.c, buf, n0 + 64 * q, mRow, batch, TG_RANK_C);
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    }
  }
}
#else
// The epilogue of 64 rows from mRow straight from registers (layout as above).
__device__ __forceinline__ void tg_epilogue_direct(const TgBody& body, const float (&d)[TG_BN / 2], int batch,
                                                   int mRow, int n0, int t) {
  const int row = mRow + 16 * (t / 32) + (t % 32) / 4, col = n0 + 2 * (t % 4);
#pragma unroll
  for (int j = 0; j < TG_BN / 8; ++j) {
    body.store(batch, row, col + 8 * j, d[4 * j], d[4 * j + 1]);
    body.store(batch, row + 8, col + 8 * j, d[4 * j + 2], d[4 * j + 3]);
  }
}
#endif

// One k-block of wgmma: rows [64 r, 64 r + 64) of the A stage at `a` times the B stage at `b`
// into d (accumulating unless this is the tile's first k-block). Each instruction takes 32
// bytes of K: four per 128-byte k-block. (The MN-major offsets hold for 2-byte operands only.)
__device__ __forceinline__ void tg_mma_kblock(float (&d)[TG_BN / 2], unsigned a, unsigned b, int r, bool first) {
  a += r * 64 * TG_BK * TG_ESIZE;
#pragma unroll
  for (int kk = 0; kk < TG_BK * TG_ESIZE / 32; ++kk) {
#if TG_A_KMAJOR
    const unsigned long long da = tg_wgmma_desc(a + 32 * kk, 16, 1024);
#else
    const unsigned long long da = tg_wgmma_desc(a + 2048 * kk, 64 * TG_BK * 2, 1024);
#endif
#if TG_B_KMAJOR
    const unsigned long long db = tg_wgmma_desc(b + 32 * kk, 16, 1024);
#else
    const unsigned long long db = tg_wgmma_desc(b + 2048 * kk, 64 * TG_BK * 2, 1024);
#endif
    tg_wgmma(d, da, db, !first || kk > 0);
  }
}

// One k-block from ring stage s, for both schedules: wait until the producer has filled the
// stage (`parity`: the phase of its full barrier), multiply rows [64 r, 64 r + 64) for each
// r in [firstRow, firstRow + kRows) into d[r - firstRow], keep this batch in flight, and hand
// the previous batch's stage (`prev`, -1 for none) back to the producer: with at most one
// batch pending, the previous one is done.
template <int kRows>
__device__ __forceinline__ void tg_consume_kblock(float (&d)[kRows][TG_BN / 2], int firstRow,
                                                  unsigned aBase, unsigned bBase, unsigned barBase,
                                                  int s, unsigned parity, bool first, int& prev,
                                                  int t) {
  tg_mbar_wait(barBase + 8 * s, parity);
  const unsigned a = aBase + s * kTgAStageBytes, b = bBase + s * kTgBStageBytes;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
  for (int r = 0; r < kRows; ++r) tg_mma_kblock(d[r], a, b, firstRow + r, first);
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
  if (prev >= 0 && t == 0) tg_mbar_arrive(barBase + 8 * (TG_STAGES + prev));
  prev = s;
}

// Persistent: the grid is at most one CTA per SM and each CTA walks tiles blockIdx.x,
// blockIdx.x + gridDim.x, ... The producer loads the k-blocks of those tiles in order into the
// ring. Two consumer schedules (TG_PINGPONG):
//   cooperative (0): both consumers work on every tile, 64 rows each; the producer runs ahead
//       into the next tile while they run its epilogue (the tensor cores idle meanwhile).
//   ping-pong (1): consumer c takes the CTA's tiles c, c + 2, ... whole (both 64-row halves),
//       so one consumer's epilogue overlaps the other's mainloop. The ring hands out k-blocks
//       in tile order, which keeps the two mainloops taking turns.
extern "C" __global__ void __launch_bounds__(384, 1)
    TG_NAME(const TgBody body, const __grid_constant__ TgMaps maps) {
  TG_GRID_PROLOGUE();
  extern __shared__ unsigned char tg_dynamic_smem[];
  // 1024-byte alignment for the 128-byte swizzle pattern (the launch asks for 1 KiB extra).
  const unsigned base = (tg_smem_addr(tg_dynamic_smem) + 1023u) & ~1023u;
  const unsigned aBase = base, bBase = base + TG_STAGES * kTgAStageBytes;
  const unsigned cBase = bBase + TG_STAGES * kTgBStageBytes;
  const unsigned barBase = cBase + kTgCBytes;  // full[s], then empty[s]
  const int wg = threadIdx.x / 128, t = threadIdx.x % 128;
  const int tilesM = (int)((body.rowsM() + TG_BM - 1) / TG_BM);
  const int tiles = tilesM * (int)TgBody::kTilesN * (int)body.batches();
  constexpr int kTilesK = (int)((TgBody::kK + TG_BK - 1) / TG_BK);

  if (threadIdx.x == 0) {
    for (int s = 0; s < TG_STAGES; ++s) {
      tg_mbar_init(barBase + 8 * s, 1);                                  // the producer's expect_tx
      tg_mbar_init(barBase + 8 * (TG_STAGES + s), TG_PINGPONG ? 1 : 2);  // one arrival per reader
    }
    if (TG_PINGPONG) tg_mbar_init(barBase + 16 * TG_STAGES, 1), tg_mbar_init(barBase + 16 * TG_STAGES + 8, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();

  if (wg == 0) {  // producer
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    if (t != 0) return;
    int s = 0;
    unsigned phase = 0;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      int m0, n0, batch;
      tg_tile_coords(tilesM, tile, m0, n0, batch);
      for (int kt = 0; kt < kTilesK; ++kt) {
        tg_mbar_wait(barBase + 8 * (TG_STAGES + s), phase ^ 1);
        const unsigned full = barBase + 8 * s;
        tg_mbar_expect_tx(full, kTgAStageBytes + kTgBStageBytes);
        const int k0 = kt * TG_BK;
        const unsigned a = aBase + s * kTgAStageBytes, b = bBase + s * kTgBStageBytes;
#if TG_A_KMAJOR
        tg_tma_load(a, &maps.a, full, k0, m0, batch, TG_RANK_A);
#else
        for (int i = 0; i < TG_BM / 64; ++i) tg_tma_load(a + i * 64 * TG_BK * 2, &maps.a, full, m0 + 64 * i, k0, batch, TG_RANK_A);
#endif
#if TG_B_KMAJOR
        tg_tma_load(b, &maps.b, full, k0, n0, batch, TG_RANK_B);
#else
        for (int i = 0; i < TG_BN / 64; ++i) tg_tma_load(b + i * 64 * TG_BK * 2, &maps.b, full, n0 + 64 * i, k0, batch, TG_RANK_B);
#endif
        if (++s == TG_STAGES) s = 0, phase ^= 1;
      }
    }
    return;
  }

  // consumers
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
  const int c = wg - 1;
  unsigned chunk = 0;  // the epilogue's shared buffers in turn
  (void)chunk;
#if TG_PINGPONG
  // The mainloops take turns: consumer c starts the CTA's tile j only after the other consumer
  // has waited for its last k-block of tile j - 1 (order[c], one arrival per tile). Besides
  // keeping the tensor cores on one tile at a time, this keeps each consumer's parity waits on
  // the ring within one phase of the barrier (a waiter further ahead could take an old phase
  // of the same parity for its own).
  const unsigned order = barBase + 16 * TG_STAGES;  // order[0], order[1]
  float d[2][TG_BN / 2];  // both 64-row halves of each tile
  for (int j = c, tile = blockIdx.x + c * gridDim.x; tile < tiles; j += 2, tile += 2 * gridDim.x) {
    int m0, n0, batch;
    tg_tile_coords(tilesM, tile, m0, n0, batch);
    if (j > 0) tg_mbar_wait(order + 8 * c, ((j - 1) / 2) & 1);
    int prev = -1;
    for (int kt = 0, g = j * kTilesK; kt < kTilesK; ++kt, ++g)  // g: the k-block in the CTA's order
      tg_consume_kblock(d, 0, aBase, bBase, barBase, g % TG_STAGES, (g / TG_STAGES) & 1, kt == 0, prev, t);
    if (t == 0) tg_mbar_arrive(order + 8 * (1 - c));  // the other consumer's turn
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    if (t == 0) tg_mbar_arrive(barBase + 8 * (TG_STAGES + prev));  // the producer may refill it
#if TG_TMA_STORE
    const unsigned bufs = cBase + c * 2 * kTgCBufBytes;
    tg_epilogue_tma(body, maps, d[0], batch, m0, n0, t, bufs, 1 + c, chunk);
    tg_epilogue_tma(body, maps, d[1], batch, m0 + 64, n0, t, bufs, 1 + c, chunk);
#else
    tg_epilogue_direct(body, d[0], batch, m0, n0, t);
    tg_epilogue_direct(body, d[1], batch, m0 + 64, n0, t);
#endif
  }
#else
  float d[1][TG_BN / 2];  // rows [64 c, 64 c + 64) of each tile
  int s = 0;
  unsigned phase = 0;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    int m0, n0, batch;
    tg_tile_coords(tilesM, tile, m0, n0, batch);
    int prev = -1;
    for (int kt = 0; kt < kTilesK; ++kt) {
      tg_consume_kblock(d, c, aBase, bBase, barBase, s, phase, kt == 0, prev, t);
      if (++s == TG_STAGES) s = 0, phase ^= 1;
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    if (t == 0) tg_mbar_arrive(barBase + 8 * (TG_STAGES + prev));  // the producer may refill it
#if TG_TMA_STORE
    tg_epilogue_tma(body, maps, d[0], batch, m0 + 64 * c, n0, t, cBase + c * 2 * kTgCBufBytes, 1 + c, chunk);
#else
    tg_epilogue_direct(body, d[0], batch, m0 + 64 * c, n0, t);
#endif
  }
#endif
#if TG_TMA_STORE
  if (t == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");  // before the CTA's memory goes
#endif
}
