// ---- row kernel skeleton (compiler/lib/CodeGen/templates/row.cuh) ----
// A row kernel (tg.fusion row, EmitRow.cpp) computes reductions over rows together with the
// elementwise ops around them. The emitter defines, before this file,
//   TG_NAME, TG_BLOCK      the kernel's name and threads per block
//   TG_GROUP               threads of one block that share a row (1..TG_BLOCK, a power of 2)
//   TG_CLUSTER             blocks that share a row (a thread-block cluster; 1: none)
//   TG_SLOTS               reductions per row (each has its own shared-memory slot)
// and `struct TgBody` (its row() after this file, since it calls the helpers below) with
//   Index, rows()          the index type and the number of rows (kRows, or a size argument)
//   aligned()              whether every vector-accessed pointer is 16-byte aligned
//   row(r, lane, live, vec) everything of row r, computed by its TG_GROUP * TG_CLUSTER
//                          threads (lane = the thread's place among them); it stores only if
//                          `live`; `vec`: use 16-byte accesses.
// Without a cluster, groups stride over the rows; the loop is uniform per block (a group whose
// row is past the end recomputes the last row without storing it), so every thread takes part
// in the shuffles and barriers of tg_row_reduce. With a cluster, the grid is exactly one
// cluster per row.

// Elements [n0, n0 + V) of a row at p (those below n), with one vector access when `vec` and
// all V are inside the row; the others are 0.
template <int V, typename T, typename Index>
__device__ __forceinline__ void tg_row_load(const T* p, Index n0, Index n, T (&v)[V], bool vec) {
  constexpr int kBytes = V * (int)sizeof(T);
  if (V > 1 && kBytes % 4 == 0 && vec && n0 + V <= n) {
    if constexpr (kBytes % 16 == 0) {
      union { uint4 raw[kBytes / 16]; T e[V]; } u;
#pragma unroll
      for (int c = 0; c < kBytes / 16; ++c) u.raw[c] = tg_ld16(reinterpret_cast<const uint4*>(p + n0) + c);
#pragma unroll
      for (int j = 0; j < V; ++j) v[j] = u.e[j];
    } else if constexpr (kBytes == 8) {
      union { uint2 raw; T e[V]; } u;
      u.raw = *reinterpret_cast<const uint2*>(p + n0);
#pragma unroll
      for (int j = 0; j < V; ++j) v[j] = u.e[j];
    } else if constexpr (kBytes == 4) {
      union { unsigned raw; T e[V]; } u;
      u.raw = *reinterpret_cast<const unsigned*>(p + n0);
#pragma unroll
      for (int j = 0; j < V; ++j) v[j] = u.e[j];
    }
    return;
  }
#pragma unroll
  for (int j = 0; j < V; ++j) v[j] = n0 + j < n ? p[n0 + j] : T(0);
}

// Stores elements [n0, n0 + V) of a row at p (those below n), as tg_row_load reads them.
template <int V, typename T, typename Index>
__device__ __forceinline__ void tg_row_store(T* p, Index n0, Index n, const T (&v)[V], bool vec) {
  constexpr int kBytes = V * (int)sizeof(T);
  if (V > 1 && kBytes % 4 == 0 && vec && n0 + V <= n) {
    if constexpr (kBytes % 16 == 0) {
      union { uint4 raw[kBytes / 16]; T e[V]; } u;
#pragma unroll
      for (int j = 0; j < V; ++j) u.e[j] = v[j];
#pragma unroll
      for (int c = 0; c < kBytes / 16; ++c) tg_st16(reinterpret_cast<uint4*>(p + n0) + c, u.raw[c]);
    } else if constexpr (kBytes == 8) {
      union { uint2 raw; T e[V]; } u;
#pragma unroll
      for (int j = 0; j < V; ++j) u.e[j] = v[j];
      *reinterpret_cast<uint2*>(p + n0) = u.raw;
    } else if constexpr (kBytes == 4) {
      union { unsigned raw; T e[V]; } u;
#pragma unroll
      for (int j = 0; j < V; ++j) u.e[j] = v[j];
      *reinterpret_cast<unsigned*>(p + n0) = u.raw;
    }
    return;
  }
#pragma unroll
  for (int j = 0; j < V; ++j)
    if (n0 + j < n) p[n0 + j] = v[j];
}

// tg_cluster_rank, tg_cluster_sync and tg_ld_cluster: templates/cluster.cuh, emitted before this.

// Combines `v` over the threads of a row (shuffles within a warp, shared memory between the
// warps of a group, distributed shared memory between the blocks of a cluster); every one of
// them gets the same result, combined in the same order. kSlot numbers the row's reductions:
// each has its own shared memory, so one barrier per reduction suffices.
template <typename T, int kSlot, typename Op>
__device__ __forceinline__ T tg_row_reduce(T v, Op op) {
  constexpr int kWarpLanes = TG_GROUP < 32 ? TG_GROUP : 32;
#pragma unroll
  for (int offset = kWarpLanes / 2; offset > 0; offset /= 2)
    v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
#if TG_GROUP > 32
  {
    constexpr int kWarps = TG_GROUP / 32;
    __shared__ T partial[TG_BLOCK / 32];
    const int warp = threadIdx.x / 32, first = warp - warp % kWarps;
    if (threadIdx.x % 32 == 0) partial[warp] = v;
    __syncthreads();
    v = partial[first];
#pragma unroll
    for (int w = 1; w < kWarps; ++w) v = op(v, partial[first + w]);
  }
#endif
#if TG_CLUSTER > 1
  {
    __shared__ T mine;
    if (threadIdx.x == 0) mine = v;
    tg_cluster_sync();
    v = tg_ld_cluster(&mine, 0);
#pragma unroll
    for (unsigned c = 1; c < TG_CLUSTER; ++c) v = op(v, tg_ld_cluster(&mine, c));
  }
#endif
  return v;
}

// Stores elements [n0, n0 + V) of a row at p (those below n) as bf16 (kBf16) or f16, rounded
// from f32 two at a time (tg_pack_bf16x2: one instruction on sm_80 and newer, where NaN becomes
// the canonical NaN), with one vector access when `vec` and all V are inside the row.
template <bool kBf16, int V, typename Index>
__device__ __forceinline__ void tg_row_store_16(unsigned short* p, Index n0, Index n, const float (&v)[V], bool vec) {
  const auto pack = [](float lo, float hi) { return kBf16 ? tg_pack_bf16x2(lo, hi) : tg_pack_f16x2(lo, hi); };
  if constexpr (V % 2 == 0) {
    if (vec && n0 + V <= n) {
      union { uint4 raw[(V + 7) / 8]; unsigned w[V / 2]; } u;
#pragma unroll
      for (int i = 0; i < V / 2; ++i) u.w[i] = pack(v[2 * i], v[2 * i + 1]);
      if constexpr (V % 8 == 0) {
#pragma unroll
        for (int c = 0; c < V / 8; ++c) tg_st16(reinterpret_cast<uint4*>(p + n0) + c, u.raw[c]);
      } else if constexpr (V == 4) {
        *reinterpret_cast<uint2*>(p + n0) = make_uint2(u.w[0], u.w[1]);
      } else {
        *reinterpret_cast<unsigned*>(p + n0) = u.w[0];
      }
      return;
    }
  }
#pragma unroll
  for (int j = 0; j < V; ++j)
    if (n0 + j < n) p[n0 + j] = (unsigned short)(pack(v[j], 0.0f) & 0xffffu);
}

struct TgSumF { __device__ __forceinline__ float operator()(float a, float b) const { return a + b; } };
struct TgMaxF { __device__ __forceinline__ float operator()(float a, float b) const { return tg_maxf(a, b); } };
struct TgSumI { __device__ __forceinline__ int operator()(int a, int b) const { return tg_iadd(a, b); } };
struct TgMaxI { __device__ __forceinline__ int operator()(int a, int b) const { return a > b ? a : b; } };
struct TgMinF { __device__ __forceinline__ float operator()(float a, float b) const { return tg_minf(a, b); } };
struct TgMinI { __device__ __forceinline__ int operator()(int a, int b) const { return a < b ? a : b; } };
struct TgProdF { __device__ __forceinline__ float operator()(float a, float b) const { return a * b; } };
struct TgProdI { __device__ __forceinline__ int operator()(int a, int b) const { return tg_imul(a, b); } };
// argmax / argmin keys (tg_arg_key, prelude.cuh).
struct TgMaxKey {
  __device__ __forceinline__ unsigned long long operator()(unsigned long long a, unsigned long long b) const {
    return a > b ? a : b;
  }
};

#if TG_CLUSTER > 1
extern "C" __global__ void __cluster_dims__(TG_CLUSTER, 1, 1) __launch_bounds__(TG_BLOCK, 1)
    TG_NAME(const TgBody body) {
  TG_GRID_PROLOGUE();
  typedef TgBody::Index Index;
  // One cluster per row. (Clusters striding over the rows, as many as the GPU holds at once,
  // measured slower on the H200: RESULTS.md, 2026-12-02 15:10.)
  const Index r = (Index)blockIdx.x / TG_CLUSTER;
  if (r >= body.rows()) return;  // the whole cluster, so no barrier waits
  body.row(r, (int)(tg_cluster_rank() * TG_GROUP + threadIdx.x), true, body.aligned());
  // The other blocks may still read this one's shared memory. Nothing to order (relaxed): a
  // release here would wait for this block's global stores.
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
}
#else
extern "C" __global__ void __launch_bounds__(TG_BLOCK) TG_NAME(const TgBody body) {
  TG_GRID_PROLOGUE();
  typedef TgBody::Index Index;
  constexpr int kGroupsPerBlock = TG_BLOCK / TG_GROUP;
  const int lane = threadIdx.x % TG_GROUP;
  const bool vec = body.aligned();
  for (Index r0 = (Index)blockIdx.x * kGroupsPerBlock; r0 < body.rows();
       r0 += (Index)gridDim.x * kGroupsPerBlock) {
    const Index r = r0 + threadIdx.x / TG_GROUP;
    const bool live = r < body.rows();
    body.row(live ? r : body.rows() - 1, lane, live, vec);
#if TG_GROUP > 32 && TG_SLOTS < 2
    __syncthreads();  // the next row's reduction reuses the shared memory this one read
#endif
  }
}
#endif
