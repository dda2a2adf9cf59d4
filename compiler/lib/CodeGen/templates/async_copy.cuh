// ---- Asynchronous copies into shared memory (compiler/lib/CodeGen/templates/async_copy.cuh) ----
// cp.async (sm_80 and newer), for kernels that stage operands in shared memory while they
// compute (matmul_mma.cuh, attention.cuh).
__device__ __forceinline__ unsigned tg_smem_addr(const void* p) {
  unsigned r;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(r) : "l"(p));
  return r;
}
// 16 bytes from global to shared memory, bypassing L1; zero-filled when !valid.
__device__ __forceinline__ void tg_cp_async16(unsigned dst, const void* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(valid ? 16 : 0)
               : "memory");
}
__device__ __forceinline__ void tg_cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
// Waits until at most N of this thread's committed copy groups are still in flight.
template <int N>
__device__ __forceinline__ void tg_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
