// ---- tiled transpose (compiler/lib/CodeGen/templates/transpose.cuh) ----
// The emitter defines TG_NAME, TG_ROWS (R), TG_COLS (C) and `struct TgBody` above this line:
//   T                the element's storage type
//   Index            unsigned or unsigned long long, wide enough for every element offset
//   in0, out0        the input [batch..] R x C and the output [batch..] C x R, row-major
// out[b][c][r] = in[b][r][c]. Each 256-thread block moves one 32 x 32 tile through shared
// memory (a padding column keeps both passes free of bank conflicts), so that the loads run
// along c and the stores along r: both coalesced, where an elementwise copy reading through
// the transpose would fetch a 32-byte sector per 4-byte element. Grid: ceil(C / 32) x
// ceil(R / 32) x batch.
extern "C" __global__ void __launch_bounds__(256) TG_NAME(const TgBody body) {
  TG_GRID_PROLOGUE();
  typedef TgBody::Index Index;
  __shared__ TgBody::T tile[32][33];
  const Index plane = (Index)blockIdx.z * ((Index)TG_ROWS * TG_COLS);
  const int c0 = blockIdx.x * 32, r0 = blockIdx.y * 32;
  const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
#pragma unroll
  for (int j = ty; j < 32; j += 8) {
    const int r = r0 + j, c = c0 + tx;
    if (r < TG_ROWS && c < TG_COLS) tile[j][tx] = body.in0[plane + (Index)r * TG_COLS + c];
  }
  __syncthreads();
#pragma unroll
  for (int j = ty; j < 32; j += 8) {
    const int c = c0 + j, r = r0 + tx;
    if (r < TG_ROWS && c < TG_COLS) body.out0[plane + (Index)c * TG_ROWS + r] = tile[tx][j];
  }
}
