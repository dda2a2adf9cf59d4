// ---- elementwise kernel skeleton (compiler/lib/CodeGen/templates/elementwise.cuh) ----
// The emitter defines TG_NAME, TG_BLOCK, TG_UNROLL and `struct TgBody` above this line:
//   Index            unsigned or unsigned long long, wide enough for kNumel
//   numel()          elements in the iteration space (every output has this many): the
//                    constant kNumel, or over dynamic dims a size argument
//   kVec             elements per 16-byte access of the narrowest tensor (1: no vectors)
//   Regs             registers for one vector step of every vector-accessed input
//   aligned()        whether every vector-accessed pointer is 16-byte aligned
//   load(i, regs)    16-byte loads of elements [i, i + kVec) of each such input
//   finish(i, regs)  the fused math on them, and 16-byte stores of the outputs
//   one(i)           element i with scalar accesses
// Grid-stride over a grid sized from the SM count. Each thread first issues TG_UNROLL vector
// loads per input (each one coalesced across the warp), then computes and stores: enough bytes
// in flight to keep HBM busy. The scalar loop handles the tail and misaligned pointers.
extern "C" __global__ void __launch_bounds__(TG_BLOCK) TG_NAME(const TgBody body) {
  TG_GRID_PROLOGUE();
  typedef TgBody::Index Index;
  const Index tid = (Index)blockIdx.x * TG_BLOCK + threadIdx.x;
  const Index stride = (Index)gridDim.x * TG_BLOCK;
  Index start = 0;
  if (TgBody::kVec > 1 && body.aligned()) {
    const Index vecEnd = body.numel() / TgBody::kVec * TgBody::kVec;
    const Index step = stride * TgBody::kVec;
    for (Index base = tid * TgBody::kVec; base < vecEnd; base += step * TG_UNROLL) {
      TgBody::Regs regs[TG_UNROLL];
#pragma unroll
      for (int u = 0; u < TG_UNROLL; ++u)
        if (base + u * step < vecEnd) body.load(base + u * step, regs[u]);
#pragma unroll
      for (int u = 0; u < TG_UNROLL; ++u)
        if (base + u * step < vecEnd) body.finish(base + u * step, regs[u]);
    }
    start = vecEnd;
  }
  for (Index i = start + tid; i < body.numel(); i += stride) body.one(i);
}
