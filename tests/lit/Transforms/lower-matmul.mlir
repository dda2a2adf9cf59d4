// RUN: tg-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(tg-fuse{remarks=false}, tg-lower-matmul{arch=sm_90a}))' | FileCheck %s
// RUN: tg-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(tg-fuse{remarks=false}, tg-lower-matmul{arch=sm_80}))' | FileCheck %s --check-prefix=SM80
//
// Each gemm kernel records its path and tile. On sm_90a, bf16/f16 operands whose rows TMA can
// address take the wgmma path: 128x256x64 tiles with 4 stages when that still gives about a
// wave of tiles, else 128x128x64 with 6. Everything else takes the simt path, with the reason:
// 64x64 tiles for large problems, 32x32 for small ones so that the grid still fills the device.

// CHECK-LABEL: func.func @large_bf16
// CHECK: tg.fusion gemm
// CHECK-SAME: tg.arch = "sm_90a", tg.path = "wgmma", tg.stages = 4 : i64, tg.tile = array<i64: 128, 256, 64>
// SM80-LABEL: func.func @large_bf16
// SM80: tg.path = "simt", tg.path_reason = "wgmma needs sm_90a (target sm_80)", tg.tile = array<i64: 64, 64, 16>
func.func @large_bf16(%a: tensor<4096x512xbf16>, %b: tensor<4096x512xbf16>) -> tensor<4096x4096xbf16> {
  %0 = tg.matmul %a, %b transpose_b : tensor<4096x512xbf16>, tensor<4096x512xbf16> -> tensor<4096x4096xbf16>
  return %0 : tensor<4096x4096xbf16>
}

// -----

// CHECK-LABEL: func.func @small_f16
// CHECK: tg.path = "wgmma", tg.stages = 6 : i64, tg.tile = array<i64: 128, 128, 64>
func.func @small_f16(%a: tensor<256x64xf16>, %b: tensor<64x128xf16>) -> tensor<256x128xf16> {
  %0 = tg.matmul %a, %b : tensor<256x64xf16>, tensor<64x128xf16> -> tensor<256x128xf16>
  return %0 : tensor<256x128xf16>
}

// -----

// CHECK-LABEL: func.func @large_f32
// CHECK: tg.path = "simt", tg.path_reason = "the tensor-core path takes bf16/f16 operands (f32 runs on the CUDA cores)", tg.tile = array<i64: 64, 64, 16>
func.func @large_f32(%a: tensor<1024x512xf32>, %b: tensor<512x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = tg.matmul %a, %b : tensor<1024x512xf32>, tensor<512x1024xf32> -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

// -----

// Rows of 33 two-byte elements are not 16-byte aligned: TMA cannot load them.
// CHECK-LABEL: func.func @unaligned
// CHECK: tg.path = "simt", tg.path_reason = "A's rows (33 elements) are not a multiple of 8, so TMA cannot load them", tg.tile = array<i64: 32, 32, 16>
func.func @unaligned(%a: tensor<17x33xbf16>, %b: tensor<65x33xbf16>) -> tensor<17x65xbf16> {
  %0 = tg.matmul %a, %b transpose_b : tensor<17x33xbf16>, tensor<65x33xbf16> -> tensor<17x65xbf16>
  return %0 : tensor<17x65xbf16>
}
