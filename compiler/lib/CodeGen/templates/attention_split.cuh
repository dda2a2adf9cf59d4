// ---- Split-key attention for a few query rows (compiler/lib/CodeGen/templates/attention_split.cuh) ----
// Flash-decoding: softmax(score(q @ k^T)) @ v for a few query rows per batch (decode: the
// query heads that share a key/value head times the new tokens) against many keys. The keys
// are split into TG_SPLITS chunks of TG_CHUNK; block (split, b) streams its chunk once from
// memory with an online softmax and writes its partial result (the chunk's row maxima, sums
// of exponentials and unnormalised p @ v, f32) to the scratch buffer; the combine kernel
// (TG_PHASE 1, launched next, same parameters) rescales the chunks' partials to the rows'
// maxima, adds them in split order (deterministic) and stores p @ v. The emitter
// (EmitAttentionSplit.cpp) defines TG_NAME, TG_PHASE, TG_THREADS, TG_SPLITS, TG_CHUNK, TG_UNROLL and
// `struct TgBody` as for templates/attention.cuh (kBatch, kM, kS, kD == kDv, ElemK == ElemV,
// kVecK: elements in 16 bytes, cvtK, cvtV, toK, keys(b), values(b), aligned(), q(b, m, d),
// score(b, m, s, acc), store(b, m, d, v)) plus blockMask() (ScoreMask.h) and `float* scratch`.
//
// Phase 0, per warp: groups of kLanes lanes take one key each (a lane: kVecK consecutive
// elements of the key's and the value's row: 16-byte loads), 32 / kLanes keys a warp-wide
// load, TG_UNROLL loads of keys and values in flight per lane before any math (kept as packed
// 32-bit words, as q is, until used; TG_SPLIT_PREFETCH=1 loads the next tile before this
// one's math; TG_MIN_BLOCKS caps the registers for that many blocks a multiprocessor). The dot
// products meet by shuffles within the group; the tile's row maxima rescale the warp's
// running sums and its o (each lane: kM x kVecK of it); the warps' partials meet in shared
// memory at the end. Key tiles and chunks that no row may see (ScoreMask's interval test:
// keys past a decode position, a causal or sliding-window mask) are not loaded.
// A row whose keys are all masked has sum 0 and gives 0 (not NaN).

#ifndef TG_UNROLL
#define TG_UNROLL 4
#endif
#define TG_SPLIT_NEG_INF (-__int_as_float(0x7f800000))

constexpr int kTgSplitWarps = TG_THREADS / 32;
constexpr int kTgSplitLanes = (int)(TgBody::kD / TgBody::kVecK);  // lanes a key
constexpr int kTgSplitKeysPerLoad = 32 / kTgSplitLanes;
constexpr int kTgSplitTile = TG_UNROLL * kTgSplitKeysPerLoad;      // keys a warp takes at a time
constexpr int kTgSplitStride = (int)TgBody::kD + 2;                // a partial row: max, sum, o
static_assert(kTgSplitLanes >= 1 && kTgSplitLanes <= 32 && (kTgSplitLanes & (kTgSplitLanes - 1)) == 0,
              "a key's 16-byte chunks are a power of two up to a warp");
static_assert(TG_CHUNK % kTgSplitTile == 0, "a chunk is whole warp tiles");

__device__ __forceinline__ float tg_split_exp(float x) {  // e^x, 0 for -inf
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x * 1.4426950408889634f));
  return y;
}

// A lane's 16 bytes of a row, as stored (converted where they are used: half the registers
// of f32 for 16-bit types).
// A lane's 16 bytes of a key's or a value's row, kept as four 32-bit words until used (two
// 16-bit elements a word: a 16-bit element held alone would take a register of its own).
template <typename E>
__device__ __forceinline__ void tg_split_load(const E* p, bool vector, unsigned (&w)[4]) {
  if (vector) {
    const uint4 r = tg_ld16(reinterpret_cast<const uint4*>(p));
    w[0] = r.x;
    w[1] = r.y;
    w[2] = r.z;
    w[3] = r.w;
  } else {
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      if constexpr (sizeof(E) == 4)
        w[c] = __float_as_uint(p[c]);
      else
        w[c] = (unsigned)p[2 * c] | ((unsigned)p[2 * c + 1] << 16);
    }
  }
}
// Element e of the 16 bytes, in the body's storage type.
template <typename E>
__device__ __forceinline__ E tg_split_elem(const unsigned (&w)[4], int e) {
  if constexpr (sizeof(E) == 4)
    return __uint_as_float(w[e]);
  else
    return (E)((e & 1) ? w[e >> 1] >> 16 : w[e >> 1] & 0xffffu);
}

#ifndef TG_SPLIT_PREFETCH
#define TG_SPLIT_PREFETCH 0
#endif
#ifndef TG_MIN_BLOCKS
#define TG_MIN_BLOCKS 1
#endif

#if TG_PHASE == 0
extern "C" __global__ void __launch_bounds__(TG_THREADS, TG_MIN_BLOCKS) TG_NAME(const TgBody body) {
  constexpr int kM = (int)TgBody::kM, kD = (int)TgBody::kD, kV = (int)TgBody::kVecK;
  constexpr int kU = TG_UNROLL, kL = kTgSplitLanes, kKPL = kTgSplitKeysPerLoad;
  __shared__ float shMax[kTgSplitWarps][kM], shSum[kTgSplitWarps][kM];
  __shared__ float shO[kTgSplitWarps][kM][kD];
  TG_GRID_PROLOGUE();
  const long long b = blockIdx.y;
  const int split = blockIdx.x;
  const long long c0 = (long long)split * TG_CHUNK;
  const long long cEnd = c0 + TG_CHUNK < TgBody::kS ? c0 + TG_CHUNK : TgBody::kS;
  float* part = body.scratch + ((b * TG_SPLITS + split) * kM) * kTgSplitStride;
  bool chunkVisible, chunkMasked;
  body.blockMask(b, 0, kM - 1, c0, cEnd - 1, chunkVisible, chunkMasked);
  if (!chunkVisible) {  // nothing to load: an empty partial
    for (int e = threadIdx.x; e < kM * kTgSplitStride; e += TG_THREADS)
      part[e] = e % kTgSplitStride == 0 ? TG_SPLIT_NEG_INF : 0.0f;
    return;
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int sub = lane % kL, group = lane / kL;  // the lane's chunk of D, its key in a load
  const bool vector = body.aligned();
  const TgBody::ElemK* kb = body.keys(b);
  const TgBody::ElemV* vb = body.values(b);

  // The lane's share of q, in the keys' type packed like them (q is a matmul operand of that
  // type, so nothing is lost): half the registers of floats for 16-bit types.
  unsigned q[kM][4];
#pragma unroll
  for (int m = 0; m < kM; ++m)
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      if constexpr (sizeof(TgBody::ElemK) == 4)
        q[m][c] = __float_as_uint(body.q(b, m, sub * kV + c));
      else
        q[m][c] = (unsigned)TgBody::toK(body.q(b, m, sub * kV + 2 * c)) |
                  ((unsigned)TgBody::toK(body.q(b, m, sub * kV + 2 * c + 1)) << 16);
    }
  float o[kM][kV], rowMax[kM], rowSum[kM];
#pragma unroll
  for (int m = 0; m < kM; ++m) {
    rowMax[m] = TG_SPLIT_NEG_INF;
    rowSum[m] = 0.0f;
#pragma unroll
    for (int e = 0; e < kV; ++e) o[m][e] = 0.0f;
  }

  // A warp's tiles go round robin; with TG_SPLIT_PREFETCH the next visible tile's keys and
  // values are loaded before this one's scores and p @ v are computed (two tiles of loads in
  // flight a warp, for more registers).
  const long long stride = (long long)kTgSplitWarps * kTgSplitTile;
  auto visibleFrom = [&](long long t) {  // the first tile from t a row sees (cEnd: none)
    for (; t < cEnd; t += stride) {
      if (!chunkMasked) return t;
      bool tileVisible, tileMasked;
      body.blockMask(b, 0, kM - 1, t, (t + kTgSplitTile < cEnd ? t + kTgSplitTile : cEnd) - 1, tileVisible,
                     tileMasked);
      if (tileVisible) return t;
    }
    return cEnd;
  };
  auto loadTile = [&](long long t, unsigned (&kr)[kU][4], unsigned (&vr)[kU][4]) {
    const long long tEnd = t + kTgSplitTile < cEnd ? t + kTgSplitTile : cEnd;
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const long long key = t + u * kKPL + group;
      if (key < tEnd) {
        tg_split_load(kb + key * kD + sub * kV, vector, kr[u]);
        tg_split_load(vb + key * kD + sub * kV, vector, vr[u]);
      } else {
#pragma unroll
        for (int c = 0; c < 4; ++c) kr[u][c] = vr[u][c] = 0u;
      }
    }
  };
  unsigned kv[kU][4], vv[kU][4];
  long long t0 = visibleFrom(c0 + (long long)warp * kTgSplitTile);
#if TG_SPLIT_PREFETCH
  unsigned kn[kU][4], vn[kU][4];
  if (t0 < cEnd) loadTile(t0, kv, vv);
#endif
#pragma unroll 1
  while (t0 < cEnd) {
    const long long tEnd = t0 + kTgSplitTile < cEnd ? t0 + kTgSplitTile : cEnd;
    const long long t1 = visibleFrom(t0 + stride);
#if TG_SPLIT_PREFETCH
    if (t1 < cEnd) loadTile(t1, kn, vn);
#else
    loadTile(t0, kv, vv);
#endif

    float s[kU][kM];
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const long long key = t0 + u * kKPL + group;
#pragma unroll
      for (int m = 0; m < kM; ++m) {
        float acc = 0.0f;
#pragma unroll
        for (int e = 0; e < kV; ++e) acc = fmaf(TgBody::cvtK(tg_split_elem<TgBody::ElemK>(q[m], e)),
                                                   TgBody::cvtK(tg_split_elem<TgBody::ElemK>(kv[u], e)), acc);
#pragma unroll
        for (int off = kL / 2; off > 0; off /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, off);
        s[u][m] = key < tEnd ? body.score(b, m, key, acc) : TG_SPLIT_NEG_INF;
      }
    }
    // Online softmax over the warp's keys: the tile's maxima (over the warp's groups).
#pragma unroll
    for (int m = 0; m < kM; ++m) {
      float mx = s[0][m];
#pragma unroll
      for (int u = 1; u < kU; ++u) mx = fmaxf(mx, s[u][m]);
#pragma unroll
      for (int off = kL; off < 32; off *= 2) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
      const float next = fmaxf(rowMax[m], mx);
      // Every key so far masked: subtract 0 instead (the exps are 0, not NaN).
      const float shift = next == TG_SPLIT_NEG_INF ? 0.0f : next;
      const float alpha = tg_split_exp(rowMax[m] - shift);
      rowMax[m] = next;
      rowSum[m] *= alpha;
#pragma unroll
      for (int e = 0; e < kV; ++e) o[m][e] *= alpha;
#pragma unroll
      for (int u = 0; u < kU; ++u) {
        const float p = tg_split_exp(s[u][m] - shift);
        rowSum[m] += p;  // the group's keys (each lane of a group holds the same p)
#pragma unroll
        for (int e = 0; e < kV; ++e) o[m][e] = fmaf(p, TgBody::cvtV(tg_split_elem<TgBody::ElemV>(vv[u], e)), o[m][e]);
      }
    }
#if TG_SPLIT_PREFETCH
#pragma unroll
    for (int u = 0; u < kU; ++u)
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        kv[u][c] = kn[u][c];
        vv[u][c] = vn[u][c];
      }
#endif
    t0 = t1;
  }
  // The warp's groups meet (same maxima: the tiles' maxima were warp-wide), then the warps.
#pragma unroll
  for (int m = 0; m < kM; ++m) {
#pragma unroll
    for (int off = kL; off < 32; off *= 2) {
      rowSum[m] += __shfl_xor_sync(0xffffffffu, rowSum[m], off);
#pragma unroll
      for (int e = 0; e < kV; ++e) o[m][e] += __shfl_xor_sync(0xffffffffu, o[m][e], off);
    }
    if (lane == 0) {
      shMax[warp][m] = rowMax[m];
      shSum[warp][m] = rowSum[m];
    }
    if (group == 0)
#pragma unroll
      for (int e = 0; e < kV; ++e) shO[warp][m][sub * kV + e] = o[m][e];
  }
  __syncthreads();
  for (int e = threadIdx.x; e < kM * kD; e += TG_THREADS) {
    const int m = e / kD, d = e % kD;
    float mx = TG_SPLIT_NEG_INF;
#pragma unroll
    for (int w = 0; w < kTgSplitWarps; ++w) mx = fmaxf(mx, shMax[w][m]);
    const float shift = mx == TG_SPLIT_NEG_INF ? 0.0f : mx;
    float sum = 0.0f, acc = 0.0f;
#pragma unroll
    for (int w = 0; w < kTgSplitWarps; ++w) {
      const float f = tg_split_exp(shMax[w][m] - shift);
      sum += shSum[w][m] * f;
      acc += shO[w][m][d] * f;
    }
    float* row = part + m * kTgSplitStride;
    if (d == 0) {
      row[0] = mx;
      row[1] = sum;
    }
    row[2 + d] = acc;
  }
}
#else
// The combine: each (row, d) of batch b over the splits, in split order.
extern "C" __global__ void __launch_bounds__(TG_THREADS) TG_NAME(const TgBody body) {
  constexpr int kM = (int)TgBody::kM, kD = (int)TgBody::kD;
  TG_GRID_PROLOGUE();
  const long long b = blockIdx.y;
  const float* parts = body.scratch + (b * TG_SPLITS * kM) * kTgSplitStride;
  for (int e = blockIdx.x * TG_THREADS + threadIdx.x; e < kM * kD; e += gridDim.x * TG_THREADS) {
    const int m = e / kD, d = e % kD;
    float mx = TG_SPLIT_NEG_INF;
    for (int s = 0; s < TG_SPLITS; ++s) mx = fmaxf(mx, parts[(s * kM + m) * kTgSplitStride]);
    const float shift = mx == TG_SPLIT_NEG_INF ? 0.0f : mx;
    float sum = 0.0f, acc = 0.0f;
    for (int s = 0; s < TG_SPLITS; ++s) {
      const float* row = parts + (s * kM + m) * kTgSplitStride;
      const float f = tg_split_exp(row[0] - shift);
      sum += row[1] * f;
      acc += row[2 + d] * f;
    }
    body.store(b, m, d, sum > 0.0f ? acc / sum : 0.0f);
  }
}
#endif
