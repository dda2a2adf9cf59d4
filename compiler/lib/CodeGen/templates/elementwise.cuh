// ---- elementwise kernel skeleton (compiler/lib/CodeGen/templates/elementwise.cuh) ----
// The emitter defines TG_NAME, TG_BLOCK and `struct TgBody` above this line:
//   Index            unsigned or unsigned long long, wide enough for kNumel
//   kNumel           elements in the iteration space (every output has this many)
//   kVec             elements per step of 16-byte vector accesses (1: none)
//   aligned()        whether every vector-accessed pointer is 16-byte aligned
//   vec(i)           computes elements [i, i + kVec) with vector loads and stores
//   one(i)           computes element i with scalar accesses
// Grid-stride loop over a grid sized from the SM count: vector steps first (when the
// pointers allow), then the scalar tail.
extern "C" __global__ void __launch_bounds__(TG_BLOCK) TG_NAME(const TgBody body) {
  typedef TgBody::Index Index;
  const Index tid = (Index)blockIdx.x * TG_BLOCK + threadIdx.x;
  const Index stride = (Index)gridDim.x * TG_BLOCK;
  Index start = 0;
  if (TgBody::kVec > 1 && body.aligned()) {
    const Index vecEnd = TgBody::kNumel / TgBody::kVec * TgBody::kVec;
    for (Index i = tid * TgBody::kVec; i < vecEnd; i += stride * TgBody::kVec) body.vec(i);
    start = vecEnd;
  }
  for (Index i = start + tid; i < TgBody::kNumel; i += stride) body.one(i);
}
