// ---- reduction kernel skeleton (compiler/lib/CodeGen/templates/reduction.cuh) ----
// The emitter defines TG_NAME, TG_BLOCK, TG_GROUP (threads per output: 32 = one warp, or
// TG_BLOCK = the whole block), TG_SPLIT (blocks per output, 1 unless the group is the block)
// and `struct TgBody`:
//   Index, Acc       index and accumulator types
//   kOutputs         number of outputs; kReduced: elements reduced into each
//   init()           the identity of the reduction
//   combine(a, b)    the reduction (sum, NaN-propagating max)
//   load(o, r)       element r of output o's input, as Acc
//   store(o, acc)    finishes (mean: divides) and writes output o
// Each group of TG_GROUP threads strides over its output's elements, then combines across
// lanes with warp shuffles (and shared memory between warps when the group is the block).
//
// With TG_SPLIT > 1 (few, long reductions) block b reduces slice b % TG_SPLIT of output
// b / TG_SPLIT, writes its partial to tg_partials, and the last block to arrive for an output
// (counted in tg_arrivals, which it resets to 0 for the next launch) combines the partials in
// slice order. The result does not depend on block scheduling. These module globals assume
// launches of one module do not overlap, which holds on tg's single stream.
#if TG_SPLIT > 1
__device__ TgBody::Acc tg_partials[TgBody::kOutputs * TG_SPLIT];
__device__ unsigned tg_arrivals[TgBody::kOutputs];
#endif

template <int kThreads>
__device__ __forceinline__ TgBody::Acc tg_group_combine(const TgBody& body, TgBody::Acc acc) {
  typedef TgBody::Acc Acc;
  __shared__ Acc partial[TG_BLOCK / 32];
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    acc = body.combine(acc, __shfl_xor_sync(0xffffffffu, acc, offset));
  if (kThreads > 32) {
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x < 32) {
      acc = threadIdx.x < TG_BLOCK / 32 ? partial[threadIdx.x] : body.init();
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2)
        acc = body.combine(acc, __shfl_xor_sync(0xffffffffu, acc, offset));
    }
    __syncthreads();
  }
  return acc;
}

extern "C" __global__ void __launch_bounds__(TG_BLOCK) TG_NAME(const TgBody body) {
  TG_GRID_PROLOGUE();
  typedef TgBody::Index Index;
  typedef TgBody::Acc Acc;
#if TG_SPLIT > 1
  // One block per (output, slice); the grid is exactly kOutputs * TG_SPLIT blocks.
  constexpr Index kChunk = (TgBody::kReduced + TG_SPLIT - 1) / TG_SPLIT;
  const Index o = (Index)blockIdx.x / TG_SPLIT, slice = (Index)blockIdx.x % TG_SPLIT;
  const Index begin = slice * kChunk;
  const Index end = begin + kChunk < TgBody::kReduced ? begin + kChunk : TgBody::kReduced;
  Acc acc = body.init();
#pragma unroll 4
  for (Index r = begin + threadIdx.x; r < end; r += TG_BLOCK) acc = body.combine(acc, body.load(o, r));
  acc = tg_group_combine<TG_BLOCK>(body, acc);
  __shared__ bool last;
  if (threadIdx.x == 0) {
    tg_partials[o * TG_SPLIT + slice] = acc;
    __threadfence();
    last = atomicAdd(&tg_arrivals[o], 1u) == TG_SPLIT - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  acc = body.init();
  const volatile Acc* partials = tg_partials + o * TG_SPLIT;
  for (int s = threadIdx.x; s < TG_SPLIT; s += TG_BLOCK) acc = body.combine(acc, partials[s]);
  acc = tg_group_combine<TG_BLOCK>(body, acc);
  if (threadIdx.x == 0) {
    tg_arrivals[o] = 0;
    body.store(o, acc);
  }
#else
  constexpr int kGroupsPerBlock = TG_BLOCK / TG_GROUP;
  const int lane = threadIdx.x % TG_GROUP;
  const Index group = (Index)blockIdx.x * kGroupsPerBlock + threadIdx.x / TG_GROUP;
  const Index groups = (Index)gridDim.x * kGroupsPerBlock;
  for (Index o0 = (Index)blockIdx.x * kGroupsPerBlock; o0 < TgBody::kOutputs;
       o0 += groups) {  // uniform per block: every thread takes part in the barriers below
    const Index o = o0 + (group - (Index)blockIdx.x * kGroupsPerBlock);
    Acc acc = body.init();
    if (o < TgBody::kOutputs) {
#pragma unroll 4
      for (Index r = lane; r < TgBody::kReduced; r += TG_GROUP) acc = body.combine(acc, body.load(o, r));
    }
    acc = tg_group_combine<TG_GROUP>(body, acc);
    if (lane == 0 && o < TgBody::kOutputs) body.store(o, acc);
  }
#endif
}
