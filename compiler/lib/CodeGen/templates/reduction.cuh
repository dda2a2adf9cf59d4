// ---- reduction kernel skeleton (compiler/lib/CodeGen/templates/reduction.cuh) ----
// The emitter defines TG_NAME, TG_BLOCK, TG_GROUP (threads per output: 32 = one warp, or
// TG_BLOCK = the whole block) and `struct TgBody`:
//   Index, Acc       index and accumulator types
//   kOutputs         number of outputs; kReduced: elements reduced into each
//   init()           the identity of the reduction
//   combine(a, b)    the reduction (sum, NaN-propagating max)
//   load(o, r)       element r of output o's input, as Acc
//   store(o, acc)    finishes (mean: divides) and writes output o
// Each group of TG_GROUP threads strides over its output's elements, then combines across
// lanes with warp shuffles (and shared memory between warps when the group is the block).
extern "C" __global__ void __launch_bounds__(TG_BLOCK) TG_NAME(const TgBody body) {
  typedef TgBody::Index Index;
  typedef TgBody::Acc Acc;
  constexpr int kGroupsPerBlock = TG_BLOCK / TG_GROUP;
  const int lane = threadIdx.x % TG_GROUP;
  const Index group = (Index)blockIdx.x * kGroupsPerBlock + threadIdx.x / TG_GROUP;
  const Index groups = (Index)gridDim.x * kGroupsPerBlock;
  __shared__ Acc partial[TG_BLOCK / 32];
  for (Index o0 = (Index)blockIdx.x * kGroupsPerBlock; o0 < TgBody::kOutputs;
       o0 += groups) {  // uniform per block: every thread takes part in the barriers below
    const Index o = o0 + (group - (Index)blockIdx.x * kGroupsPerBlock);
    Acc acc = body.init();
    if (o < TgBody::kOutputs)
      for (Index r = lane; r < TgBody::kReduced; r += TG_GROUP) acc = body.combine(acc, body.load(o, r));
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
      acc = body.combine(acc, __shfl_xor_sync(0xffffffffu, acc, offset));
    if (TG_GROUP > 32) {
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
    if (lane == 0 && o < TgBody::kOutputs) body.store(o, acc);
  }
}
