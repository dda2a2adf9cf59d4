// ---- in-place update skeleton (compiler/lib/CodeGen/templates/update.cuh) ----
// The emitter defines TG_NAME and `struct TgBody`: numel() (the update's elements: a constant, or
// over dynamic dims a size argument) and one(j),
// which writes element j of the update into the result (the input's own buffer) at the
// position the start tensor gives. Grid-stride over the update only: the rest of the input
// stays where it is.
extern "C" __global__ void __launch_bounds__(256) TG_NAME(const TgBody body) {
  TG_GRID_PROLOGUE();
  typedef TgBody::Index Index;
  const Index stride = (Index)gridDim.x * 256;
  for (Index j = (Index)blockIdx.x * 256 + threadIdx.x; j < body.numel(); j += stride) body.one(j);
}
