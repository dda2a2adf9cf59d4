// RUN: tg-opt %s -verify-diagnostics --tg-fuse --tg-assign-buffers | FileCheck %s
//
// tg-fuse and tg-assign-buffers over dynamic dims (tg.symbols: issue 18). Elementwise chains
// fuse as over static shapes (a splat is one element, broadcast, cloned into the kernel), and
// so do a matmul's epilogues; without fuse-reductions a reduction forms no row kernel; values with dynamic dims get 0 bytes and no arena offset
// (the symbolic plan sizes and packs them at each call: tgc-symbolic-plan.mlir).

!x = tensor<?x64xbf16, #tg.sizes<[batch*seq, 64]>>
!f = tensor<?x64xf32, #tg.sizes<[batch*seq, 64]>>
!r = tensor<?x1xf32, #tg.sizes<[batch*seq, 1]>>

// CHECK-LABEL: func.func @chain
// CHECK-SAME: tg.arena_bytes = 0
// CHECK: %[[K:.+]]:2 = tg.fusion elementwise(%arg0, %arg1) {tg.buffers = [#tg.buffer<kind = output, index = 0, offset = 0, bytes = 0>, #tg.buffer<kind = output, index = 1, offset = 0, bytes = 0>], tg.kernel = "tg_e0_mul_add_relu_cast_1more"}
// CHECK: tg.constant dense<2.000000e+00> : tensor<bf16>
// CHECK: tg.broadcast %{{.+}} dims = [] : tensor<bf16> to tensor<?x64xbf16, #tg.sizes<[batch*seq, 64]>>
// CHECK: tg.yield
// CHECK: return %[[K]]#0, %[[K]]#1
func.func @chain(%x: !x, %y: !x) -> (!x, !f) attributes {tg.symbols = [#tg.symbol<"batch", 1, 64>, #tg.symbol<"seq", 1, 512>]} {
  %c = tg.constant dense<2.0> : tensor<bf16>
  %cb = tg.broadcast %c dims = [] : tensor<bf16> to !x
  %0 = tg.mul %x, %cb : !x
  %1 = tg.add %0, %y : !x
  %2 = tg.relu %1 : !x
  %3 = tg.cast %2 : !x to !f
  %4 = tg.exp %3 : !f
  return %2, %4 : !x, !f
}

// A matmul over dynamic dims takes its epilogue as over static shapes (the element counts
// compared as polynomials).
// CHECK-LABEL: func.func @matmul_and_reduction
// CHECK: tg.fusion gemm
// CHECK: tg.matmul
// CHECK: tg.relu
// CHECK: tg.fusion reduction
// CHECK: tg.reduce_sum
func.func @matmul_and_reduction(%x: !f, %w: tensor<64x64xf32>) -> !r attributes {tg.symbols = [#tg.symbol<"batch", 1, 64>, #tg.symbol<"seq", 1, 512>]} {
  %0 = tg.matmul %x, %w : !f, tensor<64x64xf32> -> !f
  // expected-remark @+1 {{no prologue fusion without fuse-reductions}}
  %1 = tg.relu %0 : !f
  %2 = tg.reduce_sum %1 axes = [1] keep_dims : !f to !r
  return %2 : !r
}
