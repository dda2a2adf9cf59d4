// ---- check kernel skeleton (compiler/lib/CodeGen/templates/check.cuh) ----
// The emitter defines TG_NAME and `struct TgBody`: kNumel, kId (the check's site), ok(i)
// (element i of the condition) and `flag`. Any false element writes kId into the flag unless
// an earlier failure is there; nothing else happens, nothing waits.
extern "C" __global__ void __launch_bounds__(256) TG_NAME(const TgBody body) {
  TG_GRID_PROLOGUE();
  typedef TgBody::Index Index;
  const Index stride = (Index)gridDim.x * 256;
  for (Index i = (Index)blockIdx.x * 256 + threadIdx.x; i < TgBody::kNumel; i += stride)
    if (!body.ok(i)) {
      atomicCAS(body.flag, 0, TgBody::kId);
      return;
    }
}
