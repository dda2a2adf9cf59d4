// ---- row kernel skeleton (compiler/lib/CodeGen/templates/row.cuh) ----
// A row kernel (tg.fusion row, EmitRow.cpp) computes reductions over rows together with the
// elementwise ops around them. The emitter defines TG_NAME, TG_BLOCK, TG_GROUP (threads per
// row: 32 = one warp, or TG_BLOCK = the whole block) and `struct TgBody` (before this file;
// its row() after it, since it calls the helpers below) with
//   Index            the index type; kRows: the number of rows
//   row(r, lane)     everything of row r: per reduction a strided pass over the row and a
//                    group combine (tg_row_reduce), the values of one per row, then the
//                    outputs. Every thread of the group calls it with the same r.
// Groups stride over the rows; in block mode the loop is uniform per block, so every thread
// takes part in the barriers of tg_row_reduce.

// Combines `v` over the TG_GROUP threads of a row; every one of them gets the result.
template <typename T, typename Op>
__device__ __forceinline__ T tg_row_reduce(T v, Op op, T identity) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
#if TG_GROUP > 32
  __shared__ T partial[TG_BLOCK / 32];
  __shared__ T total;
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < TG_BLOCK / 32 ? partial[threadIdx.x] : identity;
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
    if (threadIdx.x == 0) total = v;
  }
  __syncthreads();
  v = total;
  __syncthreads();  // `partial` and `total` are free for the next reduction
#else
  (void)identity;
#endif
  return v;
}

struct TgSumF { __device__ __forceinline__ float operator()(float a, float b) const { return a + b; } };
struct TgMaxF { __device__ __forceinline__ float operator()(float a, float b) const { return tg_maxf(a, b); } };
struct TgSumI { __device__ __forceinline__ int operator()(int a, int b) const { return tg_iadd(a, b); } };
struct TgMaxI { __device__ __forceinline__ int operator()(int a, int b) const { return a > b ? a : b; } };

extern "C" __global__ void __launch_bounds__(TG_BLOCK) TG_NAME(const TgBody body) {
  typedef TgBody::Index Index;
  constexpr int kGroupsPerBlock = TG_BLOCK / TG_GROUP;
  const int lane = threadIdx.x % TG_GROUP;
  const Index first = (Index)blockIdx.x * kGroupsPerBlock + threadIdx.x / TG_GROUP;
  const Index step = (Index)gridDim.x * kGroupsPerBlock;
  // r is the same for every thread of a group (a warp, or the whole block)
  for (Index r = first; r < TgBody::kRows; r += step) body.row(r, lane);
}
