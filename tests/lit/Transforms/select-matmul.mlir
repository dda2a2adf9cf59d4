// RUN: tg-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(tg-fuse{remarks=false}, tg-select-matmul{arch=sm_90a}))' | FileCheck %s
// RUN: tg-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(tg-fuse{remarks=false}, tg-select-matmul{arch=sm_80}))' | FileCheck %s --check-prefix=SM80
// RUN: tg-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(tg-fuse{remarks=false}, tg-select-matmul{arch=sm_80 tf32=false}))' | FileCheck %s --check-prefix=ACCURATE
// RUN: tg-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(tg-fuse{remarks=false}, tg-select-matmul{arch=sm_90a schedule=pingpong}))' | FileCheck %s --check-prefix=PINGPONG
// RUN: tg-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(tg-fuse{remarks=false}, tg-select-matmul{arch=sm_90a path=mma_sync}))' | FileCheck %s --check-prefix=FORCED
// RUN: env TG_MATMUL_PATH=mma_sync tg-opt %s -split-input-file --tg-pipeline | FileCheck %s --check-prefix=ENV
// RUN: not tg-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(tg-select-matmul{path=fast}))' 2>&1 | FileCheck %s --check-prefix=BADPATH
// RUN: not tg-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(tg-select-matmul{schedule=zigzag}))' 2>&1 | FileCheck %s --check-prefix=BADSCHEDULE
// ENV-LABEL: func.func @large_bf16
// ENV: tg.fusion gemm
// ENV-SAME: matmul = #tg.matmul<path = mma_sync
// BADPATH: path 'fast' is not mma_sync or simt
// BADSCHEDULE: schedule 'zigzag' is not cooperative or pingpong
//
// Each gemm kernel records its path and tile (`matmul = #tg.matmul<...>` on the tg.fusion).
//  - sm_90a, bf16/f16 operands whose rows TMA can address, or f32 ones (as TF32) when both
//    are K-major (A [M, K], B [N, K]): the wgmma path, cooperative, 128x256 tiles with 4
//    stages when that still gives about a wave of tiles, else 128x128 with 6; K-blocks of
//    128 bytes (64 two-byte or 32 f32 elements). TG_GEMM_SCHEDULE=pingpong: ping-pong,
//    128x128 with 6 stages.
//  - sm_90a, f32 with an MN-major operand (B [K, N] or A [K, M]) in a problem big enough
//    (M, resp. N, >= 256, K a multiple of 4, >= 2^27 multiply-adds): a tiled transpose kernel
//    copies the operand to K-major first (`kmajor_copy` in `#tg.matmul` names it), then wgmma as above.
//  - sm_80 and newer, bf16/f16 (sm_90a: only f32 that wgmma cannot read, as TF32, with the
//    reason) whose rows cp.async can copy in 16-byte pieces: the mma_sync path, 128x128
//    tiles when that gives about a wave, else 64x64; K slabs of 64 bytes (32 two-byte or 16
//    f32 elements), 4 stages.
//  - Everything else (unaligned rows; f32 when tf32=false, as Precision::Accurate sets it):
//    the simt path, with the reason: 64x64 tiles for large problems, 32x32 for small ones so
//    that the grid still fills the device.
//  - path=mma_sync (TG_MATMUL_PATH=mma_sync for tg-pipeline, the jit and tgc) forces the
//    mma_sync path where its conditions hold.

// CHECK-LABEL: func.func @large_bf16
// CHECK: tg.fusion gemm
// CHECK-SAME: matmul = #tg.matmul<path = wgmma, arch = "sm_90a", tile = [128, 256, 64], stages = 4, schedule = cooperative, kmajor_copy = "", reason = ""
// SM80-LABEL: func.func @large_bf16
// SM80: matmul = #tg.matmul<path = mma_sync, arch = "sm_80", tile = [128, 128, 32], stages = 4, schedule = none, kmajor_copy = "", reason = ""
// ACCURATE-LABEL: func.func @large_bf16
// ACCURATE: matmul = #tg.matmul<path = mma_sync{{.*}}tile = [128, 128, 32], stages = 4
// FORCED-LABEL: func.func @large_bf16
// FORCED: matmul = #tg.matmul<path = mma_sync, arch = "sm_90a", tile = [128, 128, 32], stages = 4, schedule = none, kmajor_copy = "", reason = ""
func.func @large_bf16(%a: tensor<4096x512xbf16>, %b: tensor<4096x512xbf16>) -> tensor<4096x4096xbf16> {
  %0 = tg.matmul %a, %b transpose_b : tensor<4096x512xbf16>, tensor<4096x512xbf16> -> tensor<4096x4096xbf16>
  return %0 : tensor<4096x4096xbf16>
}

// -----

// CHECK-LABEL: func.func @small_f16
// CHECK: matmul = #tg.matmul<path = wgmma{{.*}}tile = [128, 128, 64], stages = 6, schedule = cooperative
// SM80-LABEL: func.func @small_f16
// SM80: matmul = #tg.matmul<path = mma_sync{{.*}}tile = [64, 64, 32], stages = 4
func.func @small_f16(%a: tensor<256x64xf16>, %b: tensor<64x128xf16>) -> tensor<256x128xf16> {
  %0 = tg.matmul %a, %b : tensor<256x64xf16>, tensor<64x128xf16> -> tensor<256x128xf16>
  return %0 : tensor<256x128xf16>
}

// -----

// With epilogue math (bias + gelu) too the default is cooperative; TG_GEMM_SCHEDULE=pingpong
// gives each consumer a whole 128 x 128 tile.
// CHECK-LABEL: func.func @mlp_bf16
// CHECK: tg.fusion gemm
// CHECK-SAME: matmul = #tg.matmul<path = wgmma{{.*}}tile = [128, 256, 64], stages = 4, schedule = cooperative
// PINGPONG-LABEL: func.func @mlp_bf16
// PINGPONG: matmul = #tg.matmul<path = wgmma{{.*}}tile = [128, 128, 64], stages = 6, schedule = pingpong
func.func @mlp_bf16(%x: tensor<4096x512xbf16>, %w: tensor<4096x512xbf16>, %b: tensor<4096xbf16>) -> tensor<4096x4096xbf16> {
  %0 = tg.matmul %x, %w transpose_b : tensor<4096x512xbf16>, tensor<4096x512xbf16> -> tensor<4096x4096xbf16>
  %1 = tg.broadcast %b dims = [1] : tensor<4096xbf16> to tensor<4096x4096xbf16>
  %2 = tg.add %0, %1 : tensor<4096x4096xbf16>
  %3 = tg.gelu %2 approximate = tanh : tensor<4096x4096xbf16>
  return %3 : tensor<4096x4096xbf16>
}

// -----

// f32 multiplies as TF32 on the tensor cores. On sm_90a wgmma reads TF32 only K-major, so B
// stored [K, N] is first copied to [N, K] by a kernel of its own (M = 2048 rows amortise the
// copy); Precision::Accurate (tf32=false) keeps it in f32 on the CUDA cores.
// CHECK-LABEL: func.func @large_f32
// CHECK: %[[BT:.*]] = tg.fusion elementwise(%arg1) : (tensor<512x2048xf32>) -> tensor<2048x512xf32>
// CHECK: tg.transpose %{{.*}} perm = [1, 0] : tensor<512x2048xf32> to tensor<2048x512xf32>
// CHECK: tg.fusion gemm(%arg0, %[[BT]]) {matmul = #tg.matmul<path = wgmma, arch = "sm_90a", tile = [128, 256, 32], stages = 4, schedule = cooperative, kmajor_copy = "B", reason = "">}
// CHECK: tg.matmul %{{.*}}, %{{.*}} transpose_b : tensor<2048x512xf32>, tensor<2048x512xf32> -> tensor<2048x2048xf32>
// FORCED-LABEL: func.func @large_f32
// FORCED: matmul = #tg.matmul<path = mma_sync{{.*}}tile = [128, 128, 16], stages = 4
// SM80-LABEL: func.func @large_f32
// SM80: matmul = #tg.matmul<path = mma_sync{{.*}}tile = [128, 128, 16], stages = 4
// ACCURATE-LABEL: func.func @large_f32
// ACCURATE: matmul = #tg.matmul<path = simt{{.*}}tile = [64, 64, 16]{{.*}}reason = "Precision::Accurate keeps f32 matmuls in full f32"
func.func @large_f32(%a: tensor<2048x512xf32>, %b: tensor<512x2048xf32>) -> tensor<2048x2048xf32> {
  %0 = tg.matmul %a, %b : tensor<2048x512xf32>, tensor<512x2048xf32> -> tensor<2048x2048xf32>
  return %0 : tensor<2048x2048xf32>
}

// -----

// f32 with both operands K-major (a linear layer, x @ w^T) takes wgmma as TF32 on sm_90a:
// 32 f32 elements per 128-byte K-block. 16 x 8 tiles of 128 x 256 fill the device.
// CHECK-LABEL: func.func @linear_f32
// CHECK: matmul = #tg.matmul<path = wgmma{{.*}}tile = [128, 256, 32], stages = 4, schedule = cooperative
// PINGPONG-LABEL: func.func @linear_f32
// PINGPONG: matmul = #tg.matmul<path = wgmma{{.*}}tile = [128, 128, 32], stages = 6, schedule = pingpong
// SM80-LABEL: func.func @linear_f32
// SM80: matmul = #tg.matmul<path = mma_sync{{.*}}tile = [128, 128, 16], stages = 4
// ACCURATE-LABEL: func.func @linear_f32
// ACCURATE: matmul = #tg.matmul<path = simt{{.*}}reason = "Precision::Accurate keeps f32 matmuls in full f32"
func.func @linear_f32(%x: tensor<2048x512xf32>, %w: tensor<2048x512xf32>) -> tensor<2048x2048xf32> {
  %0 = tg.matmul %x, %w transpose_b : tensor<2048x512xf32>, tensor<2048x512xf32> -> tensor<2048x2048xf32>
  return %0 : tensor<2048x2048xf32>
}

// -----

// A transposed A ([K, M]) is copied to [M, K]; the gemm's inputs are then W and the copy.
// CHECK-LABEL: func.func @transposed_a_f32
// CHECK: %[[AT:.*]] = tg.fusion elementwise(%arg0) : (tensor<512x2048xf32>) -> tensor<2048x512xf32>
// CHECK: tg.fusion gemm(%arg1, %[[AT]]) {matmul = #tg.matmul<path = wgmma, arch = "sm_90a"{{.*}}kmajor_copy = "A"
// CHECK: ^bb0(%[[W:.*]]: tensor<2048x512xf32>, %[[A:.*]]: tensor<2048x512xf32>):
// CHECK: tg.matmul %[[A]], %[[W]] transpose_b :
func.func @transposed_a_f32(%a: tensor<512x2048xf32>, %w: tensor<2048x512xf32>) -> tensor<2048x2048xf32> {
  %0 = tg.matmul %a, %w transpose_a transpose_b : tensor<512x2048xf32>, tensor<2048x512xf32> -> tensor<2048x2048xf32>
  return %0 : tensor<2048x2048xf32>
}

// -----

// x^T @ x: both operands are x stored [K, M]; one copy, x^T, serves as A and (K-major) B, and
// the gemm no longer reads x itself.
// CHECK-LABEL: func.func @gram_f32
// CHECK: %[[XT:.*]] = tg.fusion elementwise(%arg0) : (tensor<1024x2048xf32>) -> tensor<2048x1024xf32>
// CHECK: tg.fusion gemm(%[[XT]]) {matmul = #tg.matmul<path = wgmma, arch = "sm_90a"{{.*}}kmajor_copy = "A, B"
// CHECK: ^bb0(%[[T:.*]]: tensor<2048x1024xf32>):
// CHECK: tg.matmul %[[T]], %[[T]] transpose_b :
func.func @gram_f32(%x: tensor<1024x2048xf32>) -> tensor<2048x2048xf32> {
  %0 = tg.matmul %x, %x transpose_a : tensor<1024x2048xf32>, tensor<1024x2048xf32> -> tensor<2048x2048xf32>
  return %0 : tensor<2048x2048xf32>
}

// -----

// A batch of 3 sharing a rank-2 B: 3 x 2 x 3 tiles of 128 are too few, so 64x64.
// CHECK-LABEL: func.func @batched_f32
// CHECK-NOT: tg.transpose
// CHECK: matmul = #tg.matmul<path = mma_sync{{.*}}tile = [64, 64, 16], stages = 4{{.*}}reason = "wgmma reads f32 (as TF32) only from K-major operands, A [M, K] and B [N, K] (x @ w^T); here B is [K, N]; too small for a K-major copy to pay"
func.func @batched_f32(%a: tensor<3x200x64xf32>, %b: tensor<64x300xf32>) -> tensor<3x200x300xf32> {
  %0 = tg.matmul %a, %b : tensor<3x200x64xf32>, tensor<64x300xf32> -> tensor<3x200x300xf32>
  return %0 : tensor<3x200x300xf32>
}

// -----

// Rows of 33 two-byte elements are not 16-byte aligned: neither TMA nor cp.async can load them.
// CHECK-LABEL: func.func @unaligned
// CHECK: matmul = #tg.matmul<path = simt{{.*}}tile = [32, 32, 16]{{.*}}reason = "A's rows (33 elements) are not a multiple of 8, so TMA cannot load them"
// SM80-LABEL: func.func @unaligned
// SM80: matmul = #tg.matmul<path = simt{{.*}}tile = [32, 32, 16]{{.*}}reason = "A's rows (33 elements) are not a multiple of 8, so cp.async cannot load them"
// FORCED-LABEL: func.func @unaligned
// FORCED: matmul = #tg.matmul<path = simt{{.*}}reason = "A's rows (33 elements) are not a multiple of 8, so TMA cannot load them"
func.func @unaligned(%a: tensor<17x33xbf16>, %b: tensor<65x33xbf16>) -> tensor<17x65xbf16> {
  %0 = tg.matmul %a, %b transpose_b : tensor<17x33xbf16>, tensor<65x33xbf16> -> tensor<17x65xbf16>
  return %0 : tensor<17x65xbf16>
}

// -----

// f32 rows of 18 elements (72 bytes): B's rows are checked too.
// CHECK-LABEL: func.func @unaligned_f32
// CHECK: matmul = #tg.matmul<path = simt{{.*}}reason = "B's rows (18 elements) are not a multiple of 4, so cp.async cannot load them"
func.func @unaligned_f32(%a: tensor<64x32xf32>, %b: tensor<32x18xf32>) -> tensor<64x18xf32> {
  %0 = tg.matmul %a, %b : tensor<64x32xf32>, tensor<32x18xf32> -> tensor<64x18xf32>
  return %0 : tensor<64x18xf32>
}

// -----

// One token through a linear layer (x @ w^T, M = 1) is bound by w's bytes: the gemv path on
// every target, its epilogue fused. K = 2048 bf16 is 256 16-byte chunks a row: 128 threads a
// row, one row a group. mma_sync forced takes it where it can.
// CHECK-LABEL: func.func @decode_bf16
// CHECK: tg.fusion gemm
// CHECK-SAME: matmul = #tg.matmul<path = gemv, arch = "sm_90a", tile = [1, 128, 128], stages = 0, schedule = none, kmajor_copy = "", reason = "">
// CHECK: tg.silu
// SM80-LABEL: func.func @decode_bf16
// SM80: matmul = #tg.matmul<path = gemv, arch = "sm_80", tile = [1, 128, 128]
// ACCURATE-LABEL: func.func @decode_bf16
// ACCURATE: matmul = #tg.matmul<path = gemv
// FORCED-LABEL: func.func @decode_bf16
// FORCED: matmul = #tg.matmul<path = mma_sync
func.func @decode_bf16(%x: tensor<1x2048xbf16>, %w: tensor<5632x2048xbf16>) -> tensor<1x5632xbf16> {
  %0 = tg.matmul %x, %w transpose_b : tensor<1x2048xbf16>, tensor<5632x2048xbf16> -> tensor<1x5632xbf16>
  %1 = tg.silu %0 : tensor<1x5632xbf16>
  return %1 : tensor<1x5632xbf16>
}

// -----

// A @ x with one column (a Jacobi step): the matrix is A, read once; f32 stays f32 (no TF32).
// K = 2048 f32 is 512 chunks: 256 threads a row.
// CHECK-LABEL: func.func @matvec_f32
// CHECK: matmul = #tg.matmul<path = gemv, arch = "sm_90a", tile = [1, 256, 256], stages = 0
func.func @matvec_f32(%a: tensor<2048x2048xf32>, %x: tensor<2048x1xf32>) -> tensor<2048x1xf32> {
  %0 = tg.matmul %a, %x : tensor<2048x2048xf32>, tensor<2048x1xf32> -> tensor<2048x1xf32>
  return %0 : tensor<2048x1xf32>
}

// -----

// Sixteen f32 vectors stay on the CUDA cores in full f32 (faster there than TF32 tensor cores,
// as measured): four rows a group share each load of the vectors.
// CHECK-LABEL: func.func @batch16_f32
// CHECK: matmul = #tg.matmul<path = gemv, arch = "sm_90a", tile = [4, 256, 256], stages = 0
// ACCURATE-LABEL: func.func @batch16_f32
// ACCURATE: matmul = #tg.matmul<path = gemv, arch = "sm_80", tile = [4, 256, 256], stages = 0
func.func @batch16_f32(%x: tensor<16x4096xf32>, %w: tensor<4096x4096xf32>) -> tensor<16x4096xf32> {
  %0 = tg.matmul %x, %w transpose_b : tensor<16x4096xf32>, tensor<4096x4096xf32> -> tensor<16x4096xf32>
  return %0 : tensor<16x4096xf32>
}

// -----

// Sixteen bf16 vectors would make the CUDA cores' multiply-adds the bound: the tensor-core
// gemv. Seventeen are a gemm.
// CHECK-LABEL: func.func @batch16_bf16
// CHECK: matmul = #tg.matmul<path = gemv_mma, arch = "sm_90a", tile = [16, 16, 8]
// CHECK: matmul = #tg.matmul<path = wgmma
func.func @batch16_bf16(%x: tensor<16x4096xbf16>, %w: tensor<4096x4096xbf16>, %y: tensor<17x4096xbf16>) -> (tensor<16x4096xbf16>, tensor<17x4096xbf16>) {
  %0 = tg.matmul %x, %w transpose_b : tensor<16x4096xbf16>, tensor<4096x4096xbf16> -> tensor<16x4096xbf16>
  %1 = tg.matmul %y, %w transpose_b : tensor<17x4096xbf16>, tensor<4096x4096xbf16> -> tensor<17x4096xbf16>
  return %0, %1 : tensor<16x4096xbf16>, tensor<17x4096xbf16>
}

// -----

// Decode attention scores, q @ keys^T per kv head, 4 query heads a kv head: the tensor-core
// gemv; rows of 128 elements are 4 steps of a warp, so one warp a block. Two vectors (2
// query heads a kv head) stay on the CUDA cores: rows of 128 elements are 8 threads a row,
// and 640 rows x 4 heads make too few blocks of 128 threads: 64 threads a block.
// CHECK-LABEL: func.func @scores_bf16
// CHECK: matmul = #tg.matmul<path = gemv_mma, arch = "sm_90a", tile = [16, 8, 1], stages = 0
// CHECK: matmul = #tg.matmul<path = gemv, arch = "sm_90a", tile = [1, 8, 64], stages = 0
func.func @scores_bf16(%q: tensor<4x4x128xbf16>, %k: tensor<4x640x128xbf16>, %q2: tensor<4x2x128xbf16>) -> (tensor<4x4x640xbf16>, tensor<4x2x640xbf16>) {
  %0 = tg.matmul %q, %k transpose_b : tensor<4x4x128xbf16>, tensor<4x640x128xbf16> -> tensor<4x4x640xbf16>
  %1 = tg.matmul %q2, %k transpose_b : tensor<4x2x128xbf16>, tensor<4x640x128xbf16> -> tensor<4x2x640xbf16>
  return %0, %1 : tensor<4x4x640xbf16>, tensor<4x2x640xbf16>
}

// -----

// The gemv kernels read an operand in place when a copy kernel would only take a contiguous
// window of it: a layer's keys [kv, S, d] out of a cache [layers, kv, S, d]. The copy kernel
// goes; the slice moves into the gemm, which reads the cache at the window's offset.
// CHECK-LABEL: func.func @cache_window
// CHECK-NOT: tg.fusion elementwise
// CHECK: tg.fusion gemm(%{{.+}}, %arg1) {matmul = #tg.matmul<path = gemv_mma
// CHECK: tg.slice
// CHECK-SAME: starts = [1, 0, 0, 0]
func.func @cache_window(%q: tensor<2x4x64xbf16>, %cache: tensor<3x2x40x64xbf16>) -> tensor<2x4x40xbf16> {
  %s = tg.slice %cache starts = [1, 0, 0, 0] limits = [2, 2, 40, 64] steps = [1, 1, 1, 1] : tensor<3x2x40x64xbf16> to tensor<1x2x40x64xbf16>
  %k = tg.reshape %s : tensor<1x2x40x64xbf16> to tensor<2x40x64xbf16>
  %0 = tg.matmul %q, %k transpose_b : tensor<2x4x64xbf16>, tensor<2x40x64xbf16> -> tensor<2x4x40xbf16>
  return %0 : tensor<2x4x40xbf16>
}

// -----

// A strided window (every other position) is not contiguous: the copy kernel stays.
// CHECK-LABEL: func.func @strided_window
// CHECK: tg.fusion elementwise
// CHECK: tg.fusion gemm
func.func @strided_window(%q: tensor<2x4x64xbf16>, %cache: tensor<2x80x64xbf16>) -> tensor<2x4x40xbf16> {
  %k = tg.slice %cache starts = [0, 0, 0] limits = [2, 80, 64] steps = [1, 2, 1] : tensor<2x80x64xbf16> to tensor<2x40x64xbf16>
  %0 = tg.matmul %q, %k transpose_b : tensor<2x4x64xbf16>, tensor<2x40x64xbf16> -> tensor<2x4x40xbf16>
  return %0 : tensor<2x4x40xbf16>
}

// -----

// The other paths read a window in place when a view holds its offset whole (a multiple of 256
// bytes: layer 1's values 16 KiB into the cache): the tensor-core gemm takes the cache and the
// slice, and the launch adds the offset to the pointer. A window 384 bytes in (not a gemv, whose
// code takes any offset) keeps its copy.
// CHECK-LABEL: func.func @values_window
// CHECK-NOT: tg.fusion elementwise
// CHECK: tg.fusion gemm(%{{.+}}, %arg1) {matmul = #tg.matmul<path = wgmma
// CHECK: tg.slice
// CHECK-SAME: starts = [1, 0, 0, 0]
// SM80-LABEL: func.func @values_window
// SM80-NOT: tg.fusion elementwise
// SM80: tg.fusion gemm(%{{.+}}, %arg1) {matmul = #tg.matmul<path = mma_sync
func.func @values_window(%p: tensor<2x128x64xbf16>, %cache: tensor<3x2x64x64xbf16>) -> tensor<2x128x64xbf16> {
  %s = tg.slice %cache starts = [1, 0, 0, 0] limits = [2, 2, 64, 64] steps = [1, 1, 1, 1] : tensor<3x2x64x64xbf16> to tensor<1x2x64x64xbf16>
  %v = tg.reshape %s : tensor<1x2x64x64xbf16> to tensor<2x64x64xbf16>
  %0 = tg.matmul %p, %v : tensor<2x128x64xbf16>, tensor<2x64x64xbf16> -> tensor<2x128x64xbf16>
  return %0 : tensor<2x128x64xbf16>
}

// -----

// CHECK-LABEL: func.func @unaligned_values_window
// CHECK: tg.fusion elementwise
// CHECK: tg.fusion gemm
func.func @unaligned_values_window(%p: tensor<1x64x8xbf16>, %cache: tensor<3x1x8x24xbf16>) -> tensor<1x64x24xbf16> {
  %s = tg.slice %cache starts = [1, 0, 0, 0] limits = [2, 1, 8, 24] steps = [1, 1, 1, 1] : tensor<3x1x8x24xbf16> to tensor<1x1x8x24xbf16>
  %v = tg.reshape %s : tensor<1x1x8x24xbf16> to tensor<1x8x24xbf16>
  %0 = tg.matmul %p, %v : tensor<1x64x8xbf16>, tensor<1x8x24xbf16> -> tensor<1x64x24xbf16>
  return %0 : tensor<1x64x24xbf16>
}

// -----

// The epilogue reads the window too, through an argument of its own (an index map): the
// matmul's argument is still read through the window alone, so it can be a view.
// CHECK-LABEL: func.func @window_read_twice
// CHECK-NOT: tg.fusion elementwise
// CHECK: tg.fusion gemm(%arg0, %arg1, %arg1) {matmul = #tg.matmul<path = wgmma
func.func @window_read_twice(%p: tensor<2x64x64xbf16>, %cache: tensor<3x2x64x64xbf16>) -> tensor<2x64x64xbf16> {
  %s = tg.slice %cache starts = [1, 0, 0, 0] limits = [2, 2, 64, 64] steps = [1, 1, 1, 1] : tensor<3x2x64x64xbf16> to tensor<1x2x64x64xbf16>
  %v = tg.reshape %s : tensor<1x2x64x64xbf16> to tensor<2x64x64xbf16>
  %0 = tg.matmul %p, %v : tensor<2x64x64xbf16>, tensor<2x64x64xbf16> -> tensor<2x64x64xbf16>
  %1 = tg.add %0, %v : tensor<2x64x64xbf16>
  return %1 : tensor<2x64x64xbf16>
}
