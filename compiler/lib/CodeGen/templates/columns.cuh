// ---- column reduction skeleton (compiler/lib/CodeGen/templates/columns.cuh) ----
// A reduction over dims that are followed by kept ones (`sum(x, {0})` of [A, C], or dim 1 of
// [P, A, C]): every output o = p * C + c reduces the A elements (p, a, c), a column of stride C.
// The emitter (EmitReduction.cpp) defines TG_NAME, TG_SPLIT (slices of the A rows) and
// `struct TgBody` as for reduction.cuh (Index, Acc, kOutputs, kReduced, init, combine,
// load(o, a), store(o, acc)) plus kColumns (C) and kTiles (ceil(C / 32)).
// A block of 8 warps takes 32 adjacent columns (a warp's loads of one row are adjacent:
// coalesced) of one p and one slice of the rows; warp w folds rows w, w + 8, ... of its slice;
// shared memory combines the 8 warps in order. With TG_SPLIT > 1 each block writes its partial
// to tg_col_partials and the last block of a column tile to arrive (counted in
// tg_col_arrivals, reset to 0 for the next launch) combines the slices in slice order: the
// result does not depend on block scheduling. These module globals assume launches of one
// module do not overlap, which holds on tg's single stream.
#define TG_COL_WARPS 8
#if TG_SPLIT > 1
__device__ TgBody::Acc tg_col_partials[TgBody::kOutputs * TG_SPLIT];
__device__ unsigned tg_col_arrivals[TgBody::kOutputs / TgBody::kColumns * TgBody::kTiles];
#endif

extern "C" __global__ void __launch_bounds__(32 * TG_COL_WARPS) TG_NAME(const TgBody body) {
  TG_GRID_PROLOGUE();
  typedef TgBody::Index Index;
  typedef TgBody::Acc Acc;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  // blockIdx.x = (p * kTiles + tile) * TG_SPLIT + slice
  const Index group = (Index)blockIdx.x / TG_SPLIT, slice = (Index)blockIdx.x % TG_SPLIT;
  const Index p = group / TgBody::kTiles, tile = group % TgBody::kTiles;
  const Index c = tile * 32 + lane;
  const bool valid = c < TgBody::kColumns;
  const Index o = p * TgBody::kColumns + c;
  constexpr Index kChunk = (TgBody::kReduced + TG_SPLIT - 1) / TG_SPLIT;
  const Index begin = slice * kChunk;
  const Index end = begin + kChunk < TgBody::kReduced ? begin + kChunk : TgBody::kReduced;
  Acc acc = body.init();
  if (valid) {
#pragma unroll 4
    for (Index a = begin + warp; a < end; a += TG_COL_WARPS) acc = body.combine(acc, body.load(o, a));
  }
  __shared__ Acc part[TG_COL_WARPS][32];
  part[warp][lane] = acc;
  __syncthreads();
  if (warp != 0) return;
  acc = part[0][lane];
#pragma unroll
  for (int w = 1; w < TG_COL_WARPS; ++w) acc = body.combine(acc, part[w][lane]);
#if TG_SPLIT > 1
  if (valid) tg_col_partials[o * TG_SPLIT + slice] = acc;
  __threadfence();
  unsigned last = 0;
  if (lane == 0) last = atomicAdd(&tg_col_arrivals[group], 1u) == TG_SPLIT - 1;
  if (!__shfl_sync(0xffffffffu, last, 0)) return;
  __threadfence();
  const volatile Acc* partials = tg_col_partials + o * TG_SPLIT;
  acc = body.init();
  if (valid)
    for (int s = 0; s < TG_SPLIT; ++s) acc = body.combine(acc, partials[s]);
  if (lane == 0) tg_col_arrivals[group] = 0;
#endif
  if (valid) body.store(o, acc);
}
