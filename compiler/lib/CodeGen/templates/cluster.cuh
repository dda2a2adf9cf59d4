// ---- Thread-block cluster helpers (compiler/lib/CodeGen/templates/cluster.cuh) ----
// For kernels whose TG_CLUSTER > 1 blocks share work through distributed shared memory
// (row.cuh, attention.cuh); nothing without a cluster.
#if TG_CLUSTER > 1
__device__ __forceinline__ unsigned tg_cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
// Every thread of the cluster arrives; shared-memory writes before it are visible after it.
__device__ __forceinline__ void tg_cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// The 32 bits at p in the shared memory of the cluster's block `rank` (distributed shared
// memory), as a float or an int.
__device__ __forceinline__ unsigned tg_ld_cluster_bits(const void* p, unsigned rank) {
  unsigned local, remote, v;
  asm volatile("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }" : "=r"(local) : "l"(p));
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
  asm volatile("ld.shared::cluster.b32 %0, [%1];" : "=r"(v) : "r"(remote) : "memory");
  return v;
}
__device__ __forceinline__ float tg_ld_cluster(const float* p, unsigned rank) {
  return __uint_as_float(tg_ld_cluster_bits(p, rank));
}
__device__ __forceinline__ int tg_ld_cluster(const int* p, unsigned rank) {
  return (int)tg_ld_cluster_bits(p, rank);
}
__device__ __forceinline__ unsigned long long tg_ld_cluster(const unsigned long long* p, unsigned rank) {
  const unsigned* half = reinterpret_cast<const unsigned*>(p);
  return (unsigned long long)tg_ld_cluster_bits(half, rank) |
         ((unsigned long long)tg_ld_cluster_bits(half + 1, rank) << 32);
}
#endif
