// ---- Flash-attention kernel for Hopper (compiler/lib/CodeGen/templates/attention_flash.cuh) ----
// sm_90a. softmax(score(q @ k^T)) @ v without the scores in memory: each CTA takes TG_ROWS
// (64 x TG_CONSUMERS) query rows of one batch (a head, or a key/value head and the query rows that use it) and walks
// the keys in blocks of TG_BN with an online softmax. The emitter (EmitAttention.cpp) defines
// TG_NAME, TG_D (the head dim: 64, 128 or 256, q's, k's and v's), TG_BN (keys a block),
// TG_STAGES, TG_CONSUMERS (consumer warpgroups: 2, or 3 for head dim 64, whose softmax
// weighs more against its products), TG_RANK_K / TG_RANK_V (3 with a batch dim), TG_F16
// (1: f16 operands, 0: bf16),
// above this line templates/tma.cuh, the wrappers
//   tg_wgmma_qk(s, da, db, acc)  wgmma m64 x TG_BN x k16: q (shared) @ k^T (shared, K-major)
//   tg_wgmma_pv(o, a, db, acc)   wgmma m64 x TG_D x k16: p (registers) @ v (shared, MN-major)
// and `struct TgBody`:
//   batches(), rows(), keys(), tilesM()  the problem (q [rows, TG_D], keys and values [keys, TG_D]
//                               a batch; tilesM: ceil(rows / TG_ROWS)): constants, or over
//                               dynamic dims the kernel's size arguments
//   q(b, m, d)                  a query element, as f32 (the ops the pass cloned with q)
//   score(b, m, s, acc)         the fused ops between q @ k^T and the softmax (the score
//                               modifier: a scale, masks, biases), on acc = q . k
//   unmasked(b, m, s, acc)      the same without its masks (ScoreMask.h): for blocks that
//                               no mask touches
//   blockMask(b, mLo, mHi, sLo, sHi, mayVisible, mayMasked)  whether a score of rows
//                               [mLo, mHi] x keys [sLo, sHi] may be visible, may be masked
//   kBatchOf(b), vBatchOf(b)    the batch coordinate of batch b's keys and values (their
//                               tensor maps': b, or 0 for keys and values all batches share)
//   store2(b, m, d, v0, v1)     writes elements (m, d) and (m, d + 1) of the result.
//
// 1 + TG_CONSUMERS warpgroups. Warpgroup 0 is the producer: one thread loads the key and value blocks
// with TMA into a ring of TG_STAGES stages (mbarriers: fullK[s] and fullV[s] with transaction
// bytes, so the scores can start before the values land; empty[s], one arrival per
// consumer). The others are consumers, 64 query rows each. They write their q tile
// into shared memory first (computed per element by q(), rounded to the operand type, in the
// 128-byte swizzled layout wgmma reads), then per key block:
//   1. s = q @ k^T on the tensor cores (wgmma, both operands in shared memory), f32;
//   2. the score modifier on each score in registers; keys past keys() and rows past rows() are -inf;
//      a block no mask touches takes unmasked(); a block whose scores are all masked for the
//      warpgroup's rows is skipped (its stage handed back), and one all masked for the CTA's
//      rows is not even loaded (causal attention: about half of them);
//   3. online softmax in f32: the row's new max m' (over the four threads of a row), the
//      old sum and output scaled by e^(m - m'), p = e^(s - m') (ex2.approx), the sum
//      accumulated per thread (the row's four partial sums meet once, at the end);
//   4. o += p @ v on the tensor cores, p from registers: the f32 score accumulators' layout is
//      the 16-bit A operand's layout of wgmma, so p is only rounded and packed. It is issued
//      behind the next block's q @ k^T, so that it runs during that block's softmax (FA3's
//      intra-warpgroup overlap); o is rescaled once it is done.
// The consumers are not synchronised with each other: while one computes its softmax, the
// others' products keep the tensor cores busy. At the end o / sum is stored; a row whose keys
// were all masked has sum 0 and gives 0 (not NaN).

#ifndef TG_F16
#define TG_F16 0
#endif
#ifndef TG_CONSUMERS
#define TG_CONSUMERS 2
#endif
#ifndef TG_TILE_GROUP
#define TG_TILE_GROUP 1
#endif
#ifndef TG_PINGPONG
#define TG_PINGPONG 1
#endif
#define TG_ROWS (64 * TG_CONSUMERS)  // query rows a CTA
// Registers: the producer gives its share to the consumers (65536 a block, multiples of 8).
#define TG_CONSUMER_REGS (TG_CONSUMERS == 2 ? 240 : 160)
#define TG_NEG_INF (-__int_as_float(0x7f800000))

struct TgFlashMaps {
  TgTensorMap k, v;
};

constexpr int kTgQBytes = TG_ROWS * TG_D * 2;     // the q tile: TG_D / 64 column blocks of TG_ROWS rows x 128 bytes
constexpr int kTgKStageBytes = TG_BN * TG_D * 2;  // TG_D / 64 boxes of TG_BN rows x 128 bytes
constexpr int kTgVStageBytes = TG_BN * TG_D * 2;  // (TG_BN / 64) x (TG_D / 64) boxes of 64 rows x 128 bytes
static_assert(TG_D % 64 == 0 && TG_BN % 64 == 0, "the head dim and the key block are multiples of 64");

__device__ __forceinline__ unsigned tg_flash_pack(float lo, float hi) {
#if TG_F16
  return tg_pack_f16x2(lo, hi);
#else
  return tg_pack_bf16x2(lo, hi);
#endif
}
__device__ __forceinline__ float tg_flash_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// o += p @ v for the values at vS (issued and committed, not waited for).
__device__ __forceinline__ void tg_flash_pv(float (&o)[TG_D / 2], const unsigned (&p)[TG_BN / 16][4], unsigned vS) {
#pragma unroll
  for (int kk = 0; kk < TG_BN / 16; ++kk)
    tg_wgmma_pv(o, p[kk], tg_wgmma_desc(vS + (kk / 4) * (TG_D / 64) * 8192 + 2048 * (kk % 4), 8192, 1024), 1);
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

extern "C" __global__ void __launch_bounds__(128 * (TG_CONSUMERS + 1), 1)
    TG_NAME(const TgBody body, const __grid_constant__ TgFlashMaps maps) {
  TG_GRID_PROLOGUE();
  // Over dynamic dims a replay may keep a larger grid than the sizes need (keepCoveringGrids
  // in PlanSizes.h): the blocks past the work return (no barrier is shared between CTAs).
  if ((long long)blockIdx.x >= body.tilesM() * body.batches()) return;
  extern __shared__ unsigned char tg_dynamic_smem[];
  const unsigned base = (tg_smem_addr(tg_dynamic_smem) + 1023u) & ~1023u;  // the swizzle's alignment
  const unsigned qBase = base, kBase = qBase + kTgQBytes, vBase = kBase + TG_STAGES * kTgKStageBytes;
  const unsigned barBase = vBase + TG_STAGES * kTgVStageBytes;  // fullK[s], fullV[s], empty[s]
  const unsigned fullK = barBase, fullV = barBase + 8 * TG_STAGES, empty = barBase + 16 * TG_STAGES;
  const int wg = threadIdx.x / 128, t = threadIdx.x % 128;
  // The last row tiles first: under a causal mask they have the most key blocks. With masks
  // that skip blocks, batches go in groups of TG_TILE_GROUP whose heaviest tiles all run
  // before their lighter ones (the lightest fill the tail); a group's CTAs share its keys in L2.
  const long long kGroup = body.batches() < TG_TILE_GROUP ? body.batches() : TG_TILE_GROUP;
  const long long group = blockIdx.x / (kGroup * body.tilesM()), r = blockIdx.x % (kGroup * body.tilesM());
  const long long inGroup = body.batches() - group * kGroup < kGroup ? body.batches() - group * kGroup : kGroup;
  const int tile = (int)(body.tilesM() - 1 - r / inGroup);
  const long long b = group * kGroup + r % inGroup;
  const int m0 = tile * TG_ROWS;
  const int kBlocks = (int)((body.keys() + TG_BN - 1) / TG_BN);
  const long long ctaRows = (m0 + TG_ROWS - 1 < body.rows() ? m0 + TG_ROWS - 1 : body.rows() - 1);
  // Whether key block j has a score any of the CTA's rows may see (blockMask: the masks'
  // predicates over the block's ranges); the producer and both consumers skip it if not.
  auto ctaNeeds = [&](int j) {
    bool mayVisible, mayMasked;
    const long long n0 = (long long)j * TG_BN, nHi = n0 + TG_BN - 1 < body.keys() ? n0 + TG_BN - 1 : body.keys() - 1;
    body.blockMask(b, m0, ctaRows, n0, nHi, mayVisible, mayMasked);
    return mayVisible;
  };

  if (threadIdx.x == 0) {
    for (int s = 0; s < TG_STAGES; ++s) {
      tg_mbar_init(fullK + 8 * s, 1);
      tg_mbar_init(fullV + 8 * s, 1);
      tg_mbar_init(empty + 8 * s, TG_CONSUMERS);  // one arrival per consumer
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();

  if (wg == 0) {  // producer
    asm volatile("setmaxnreg.dec.sync.aligned.u32 24;");
    if (t != 0) return;
    const int kb_ = (int)TgBody::kBatchOf(b), vb_ = (int)TgBody::vBatchOf(b);
    for (int j = 0, it = 0; j < kBlocks; ++j) {
      if (!ctaNeeds(j)) continue;
      const int s = it % TG_STAGES;
      const unsigned phase = (unsigned)(it / TG_STAGES) & 1u;
      ++it;
      tg_mbar_wait(empty + 8 * s, phase ^ 1u);
      const int n0 = j * TG_BN;
      const unsigned kS = kBase + s * kTgKStageBytes, vS = vBase + s * kTgVStageBytes;
      tg_mbar_expect_tx(fullK + 8 * s, kTgKStageBytes);
#pragma unroll
      for (int kb = 0; kb < TG_D / 64; ++kb) tg_tma_load(kS + kb * TG_BN * 128, &maps.k, fullK + 8 * s, 64 * kb, n0, kb_, TG_RANK_K);
      tg_mbar_expect_tx(fullV + 8 * s, kTgVStageBytes);
#pragma unroll
      for (int r = 0; r < TG_BN / 64; ++r)
#pragma unroll
        for (int c = 0; c < TG_D / 64; ++c)
          tg_tma_load(vS + (r * (TG_D / 64) + c) * 8192, &maps.v, fullV + 8 * s, 64 * c, n0 + 64 * r, vb_, TG_RANK_V);
    }
    return;
  }

  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(TG_CONSUMER_REGS));
  const int c = wg - 1;
  // The q tile, every consumer's rows: 16-byte chunks of 8 elements, row-major within each
  // 64-column block, the chunk index XOR-ed with the row (128-byte swizzle).
  {
    const int ct = threadIdx.x - 128;
    constexpr int kChunks = TG_ROWS * TG_D / 8, kPerThread = kChunks / (128 * TG_CONSUMERS);
    static_assert(kChunks % (128 * TG_CONSUMERS) == 0, "the q tile splits evenly over the consumers");
    // Every load first, then every store: the loads are in flight together (one memory
    // latency, not one per chunk; the stores' asm would keep later loads behind them).
    unsigned packed[kPerThread][4];
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      const int ci = ct + i * 128 * TG_CONSUMERS, row = ci / (TG_D / 8), c8 = ci % (TG_D / 8);
      const int m = m0 + row;
      float v[8];
#pragma unroll
      for (int e = 0; e < 8; ++e) v[e] = m < body.rows() ? body.q(b, m, 8 * c8 + e) : 0.0f;
#pragma unroll
      for (int e = 0; e < 4; ++e) packed[i][e] = tg_flash_pack(v[2 * e], v[2 * e + 1]);
    }
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      const int ci = ct + i * 128 * TG_CONSUMERS, row = ci / (TG_D / 8), c8 = ci % (TG_D / 8);
      const unsigned addr = qBase + (c8 / 8) * (TG_ROWS * 128) + row * 128 + (((c8 % 8) ^ (row & 7)) << 4);
      asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(packed[i][0]), "r"(packed[i][1]),
                   "r"(packed[i][2]), "r"(packed[i][3])
                   : "memory");
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // visible to wgmma (the async proxy)
    asm volatile("bar.sync 1, %0;" ::"n"(128 * TG_CONSUMERS) : "memory");
  }

  // Thread t holds, of its warpgroup's 64 rows, rows r and r + 8 (r = 16 (t / 32) + (t % 32) / 4)
  // at columns 8 j + 2 (t % 4) and the next one, for each 8-column block j (wgmma's f32 layout).
  const int rowInTile = 64 * c + 16 * (t / 32) + (t % 32) / 4;
  const int col = 2 * (t % 4);
  constexpr float kLog2e = 1.4426950408889634f;
  float o[TG_D / 2];
#pragma unroll
  for (int i = 0; i < TG_D / 2; ++i) o[i] = 0.0f;
  float rowMax[2] = {TG_NEG_INF, TG_NEG_INF}, rowSum[2] = {0.0f, 0.0f};
  const unsigned qRows = qBase + c * 64 * 128;
  const long long wLo = m0 + 64 * c, wHi = wLo + 63 < body.rows() ? wLo + 63 : body.rows() - 1;
  // The probabilities of stage `prev`'s block, packed as wgmma's A. Before the first block
  // they are 0, and its product adds 0 times the first block's values: the product is issued
  // in every iteration, outside any branch, which keeps ptxas from serialising the wgmmas.
  unsigned p[TG_BN / 16][4];
#pragma unroll
  for (int kk = 0; kk < TG_BN / 16; ++kk) p[kk][0] = p[kk][1] = p[kk][2] = p[kk][3] = 0u;
  int prev = -1;  // the stage whose p @ v is still to be issued
  unsigned prevPhase = 0;
#if TG_PINGPONG
  // Ping-pong (FlashAttention-3): the consumers issue their products in turn, round robin,
  // each waiting on its named barrier (2 + c) for the one before to have issued, so that
  // one's softmax runs while the others' products keep the tensor cores busy. Every
  // consumer takes the same number of turns (one per block the CTA loads). The last
  // consumer's first hand-over starts consumer 0, and consumer 0 takes one more turn after
  // its loop for the last consumer's final hand-over: no arrival outlives the kernel (and
  // no count of the turns is kept: at 160 registers a consumer has none to spare).
  auto myTurn = [&]() { asm volatile("bar.sync %0, 256;" ::"r"(2 + c) : "memory"); };
  auto passTurn = [&]() { asm volatile("bar.arrive %0, 256;" ::"r"(2 + (c + 1) % TG_CONSUMERS) : "memory"); };
  if (c == TG_CONSUMERS - 1) asm volatile("bar.arrive 2, 256;" ::: "memory");  // consumer 0 first
#else
  auto myTurn = [&]() {};
  auto passTurn = [&]() {};
#endif

#pragma unroll 1
  for (int j = 0, it = 0; j < kBlocks; ++j) {
    if (!ctaNeeds(j)) continue;
    const int s = it % TG_STAGES;
    const unsigned phase = (unsigned)(it / TG_STAGES) & 1u;
    ++it;
    const int n0 = j * TG_BN;
    const unsigned kS = kBase + s * kTgKStageBytes;
    // This warpgroup's rows: none of the block visible (or no rows left: a ragged last
    // tile), or all of it, in bounds (no mask to evaluate per score).
    bool mayVisible = wLo < body.rows(), mayMasked = true;
    if (mayVisible) {
      const long long nHi = n0 + TG_BN - 1 < body.keys() ? n0 + TG_BN - 1 : body.keys() - 1;
      body.blockMask(b, wLo, wHi, n0, nHi, mayVisible, mayMasked);
    }
    if (!mayVisible) {
      // The stage is handed back only once both of its copies have landed: the producer
      // refills it after that, and no copy into it may still be in flight.
      tg_mbar_wait(fullK + 8 * s, phase);
      tg_mbar_wait(fullV + 8 * s, phase);
      if (t == 0) tg_mbar_arrive(empty + 8 * s);
      myTurn();  // a turn without products
      passTurn();
      continue;
    }
    const bool interior = !mayMasked && n0 + TG_BN <= body.keys() && wLo + 63 < body.rows();
    // 1. s = q @ k^T and, behind it on the tensor cores, the previous block's o += p @ v:
    //    this block's softmax (2, 3) runs while that product does.
    float sc[TG_BN / 2];
    tg_mbar_wait(fullK + 8 * s, phase);
    const int pvStage = prev >= 0 ? prev : s;
    tg_mbar_wait(fullV + 8 * pvStage, prev >= 0 ? prevPhase : phase);
    myTurn();
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int kb = 0; kb < TG_D / 64; ++kb)
#pragma unroll
      for (int kk = 0; kk < 4; ++kk)
        tg_wgmma_qk(sc, tg_wgmma_desc(qRows + kb * TG_ROWS * 128 + 32 * kk, 16, 1024),
                    tg_wgmma_desc(kS + kb * TG_BN * 128 + 32 * kk, 16, 1024), kb > 0 || kk > 0);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    tg_flash_pv(o, p, vBase + pvStage * kTgVStageBytes);
    passTurn();
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");  // s is ready
    // 2. the score modifier, and the row maxima
    float blockMax[2] = {TG_NEG_INF, TG_NEG_INF};
    if (interior) {
#pragma unroll
      for (int jj = 0; jj < TG_BN / 8; ++jj)
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            float& x = sc[4 * jj + 2 * h + e];
            x = body.unmasked(b, m0 + rowInTile + 8 * h, n0 + 8 * jj + col + e, x);
            blockMax[h] = fmaxf(blockMax[h], x);
          }
    } else {
#pragma unroll
    for (int jj = 0; jj < TG_BN / 8; ++jj)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int m = m0 + rowInTile + 8 * h;
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int key = n0 + 8 * jj + col + e;
          float& x = sc[4 * jj + 2 * h + e];
          x = key < body.keys() && m < body.rows() ? body.score(b, m, key, x) : TG_NEG_INF;
          blockMax[h] = fmaxf(blockMax[h], x);
        }
      }
    }
    // 3. online softmax (in log2 units: x log2(e))
    float alpha[2], shift[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      blockMax[h] = fmaxf(blockMax[h], __shfl_xor_sync(0xffffffffu, blockMax[h], 1));
      blockMax[h] = fmaxf(blockMax[h], __shfl_xor_sync(0xffffffffu, blockMax[h], 2));
      const float next = fmaxf(rowMax[h], blockMax[h]);
      // Every key so far masked: subtract 0 instead (the exps are 0, not NaN).
      shift[h] = next == TG_NEG_INF ? 0.0f : next * kLog2e;
      alpha[h] = tg_flash_exp2(rowMax[h] * kLog2e - shift[h]);
      rowMax[h] = next;
      rowSum[h] *= alpha[h];
    }
    // The exps in place (p @ v of the previous block still reads p).
#pragma unroll
    for (int i = 0; i < TG_BN / 2; ++i) {
      sc[i] = tg_flash_exp2(sc[i] * kLog2e - shift[(i / 2) % 2]);
      rowSum[(i / 2) % 2] += sc[i];
    }
    // 4. Once the previous product is done (its stage goes back to the producer), o is
    //    rescaled and p becomes this block's, for its product behind the next block's scores.
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    if (prev >= 0 && t == 0) tg_mbar_arrive(empty + 8 * prev);
#pragma unroll
    for (int i = 0; i < TG_D / 2; ++i) o[i] *= alpha[(i / 2) % 2];
#pragma unroll
    for (int jj = 0; jj < TG_BN / 8; ++jj) {
      p[jj / 2][2 * (jj % 2)] = tg_flash_pack(sc[4 * jj], sc[4 * jj + 1]);
      p[jj / 2][2 * (jj % 2) + 1] = tg_flash_pack(sc[4 * jj + 2], sc[4 * jj + 3]);
    }
    prev = s;
    prevPhase = phase;
  }
#if TG_PINGPONG
  if (c == 0) myTurn();  // the last consumer's final hand-over
#endif
  if (prev >= 0) {  // the last block's product
    tg_mbar_wait(fullV + 8 * prev, prevPhase);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    tg_flash_pv(o, p, vBase + prev * kTgVStageBytes);
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    if (t == 0) tg_mbar_arrive(empty + 8 * prev);
  }

  // o / sum, the row's four partial sums first
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    rowSum[h] += __shfl_xor_sync(0xffffffffu, rowSum[h], 1);
    rowSum[h] += __shfl_xor_sync(0xffffffffu, rowSum[h], 2);
    rowSum[h] = rowSum[h] > 0.0f ? 1.0f / rowSum[h] : 0.0f;
  }
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int m = m0 + rowInTile + 8 * h;
    if (m >= body.rows()) continue;
#pragma unroll
    for (int jd = 0; jd < TG_D / 8; ++jd)
      body.store2(b, m, 8 * jd + col, o[4 * jd + 2 * h] * rowSum[h], o[4 * jd + 2 * h + 1] * rowSum[h]);
  }
}
