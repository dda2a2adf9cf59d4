// RUN: tg-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(tg-fuse{remarks=false}, tg-lower-matmul{arch=sm_80}))' | FileCheck %s
//
// Each gemm kernel records its path and tile. Large problems get 64x64 tiles; small ones
// 32x32 so that the grid still fills the device.

// CHECK-LABEL: func.func @large
// CHECK: tg.fusion gemm
// CHECK-SAME: tg.arch = "sm_80", tg.path = "simt", tg.tile = array<i64: 64, 64, 16>
func.func @large(%a: tensor<1024x512xf32>, %b: tensor<512x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = tg.matmul %a, %b : tensor<1024x512xf32>, tensor<512x1024xf32> -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

// -----

// CHECK-LABEL: func.func @small
// CHECK: tg.fusion gemm
// CHECK-SAME: tg.tile = array<i64: 32, 32, 16>
func.func @small(%a: tensor<17x33xbf16>, %b: tensor<65x33xbf16>) -> tensor<17x65xbf16> {
  %0 = tg.matmul %a, %b transpose_b : tensor<17x33xbf16>, tensor<65x33xbf16> -> tensor<17x65xbf16>
  return %0 : tensor<17x65xbf16>
}
