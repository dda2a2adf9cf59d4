// RUN: tg-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(tg-fuse{remarks=false}, tg-assign-buffers))' | FileCheck %s
//
// Kernel names, and buffers: outputs fresh per call, temporaries in one arena whose slices are
// reused once their last reader has run, reshapes as aliases.

// Three kernels in a row: t1 (arena +0) dies after kernel 2 reads it, so t3 reuses +0.
// CHECK-LABEL: func.func @reuse
// CHECK-SAME: tg.arena_bytes = 8192
// CHECK: tg.fusion reduction
// CHECK-SAME: tg.buffers = [#tg.buffer<kind = arena, index = -1, offset = 0, bytes = 4096>]
// CHECK-SAME: tg.kernel = "tg_r0_reduce_sum"
// CHECK: tg.fusion elementwise
// CHECK-SAME: tg.buffers = [#tg.buffer<kind = arena, index = -1, offset = 4096, bytes = 4096>]
// CHECK-SAME: tg.kernel = "tg_e1_exp"
// CHECK: tg.fusion reduction
// CHECK-SAME: tg.buffers = [#tg.buffer<kind = arena, index = -1, offset = 0, bytes = 4096>]
// CHECK: tg.fusion elementwise
// CHECK-SAME: tg.buffers = [#tg.buffer<kind = output, index = 0, offset = 0, bytes = 4096>]
// CHECK: tg.reshape
// CHECK-SAME: tg.buffers = [#tg.buffer<kind = alias, index = -1, offset = 0, bytes = 4096>]
func.func @reuse(%x: tensor<1024x2xf32>) -> (tensor<1024xf32>, tensor<32x32xf32>) {
  %t1 = tg.reduce_sum %x axes = [1] : tensor<1024x2xf32> to tensor<1024xf32>
  %t2 = tg.exp %t1 : tensor<1024xf32>
  %t2b = tg.reshape %t2 : tensor<1024xf32> to tensor<1024x1xf32>
  %t3 = tg.reduce_max %t2b axes = [1] : tensor<1024x1xf32> to tensor<1024xf32>
  %t4 = tg.neg %t3 : tensor<1024xf32>
  %r = tg.reshape %t4 : tensor<1024xf32> to tensor<32x32xf32>
  return %t4, %r : tensor<1024xf32>, tensor<32x32xf32>
}
