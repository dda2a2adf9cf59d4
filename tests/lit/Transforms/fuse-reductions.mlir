// RUN: tg-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(tg-decompose,tg-fuse{fuse-reductions=true}))' -verify-diagnostics | FileCheck %s
// RUN: tg-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(tg-decompose,tg-fuse{remarks=false}))' | FileCheck %s --check-prefix=OFF
//
// tg-fuse{fuse-reductions=true}: a reduction over trailing dims is one row kernel with the
// elementwise ops that produce its input and those that read its result broadcast back over
// the rows. Off (the default until row kernels have code generation), reductions are kernels
// of their own.

// softmax: max, exp-sub, sum and div in one row kernel.
// CHECK-LABEL: func.func @softmax
// CHECK: %[[F:.+]] = tg.fusion row(%arg0) : (tensor<8x100xf32>) -> tensor<8x100xf32>
// CHECK: tg.reduce_max
// CHECK: tg.exp
// CHECK: tg.reduce_sum
// CHECK: tg.div
// CHECK: tg.yield
// CHECK: return %[[F]]
// CHECK-NOT: tg.fusion
// OFF-LABEL: func.func @softmax
// OFF-COUNT-4: tg.fusion {{elementwise|reduction}}
// OFF-NOT: tg.fusion
// OFF: return
func.func @softmax(%x: tensor<8x100xf32>) -> tensor<8x100xf32> {
  %0 = tg.softmax %x axis = 1 : tensor<8x100xf32>
  return %0 : tensor<8x100xf32>
}

// -----

// layer_norm of bf16 with weight and bias: the widening casts, both means, rsqrt, the
// weight and bias (read through their broadcasts) in one row kernel.
// CHECK-LABEL: func.func @layer_norm
// CHECK: %[[F:.+]] = tg.fusion row(%arg0, %arg1, %arg2)
// CHECK-COUNT-2: tg.reduce_mean
// CHECK: tg.rsqrt
// CHECK: tg.yield
// CHECK: return %[[F]]
// CHECK-NOT: tg.fusion
func.func @layer_norm(%x: tensor<6x64xbf16>, %w: tensor<64xbf16>, %b: tensor<64xbf16>) -> tensor<6x64xbf16> {
  %0 = tg.layer_norm %x weight %w : tensor<64xbf16> bias %b : tensor<64xbf16> epsilon = 1.0e-05 : tensor<6x64xbf16>
  return %0 : tensor<6x64xbf16>
}

// -----

// RMSNorm from primitives, with its statistics as a second result: one kernel, two outputs
// (the rsqrt per row and the normalised rows). Ops on one value per row (add, rsqrt) join.
// CHECK-LABEL: func.func @rmsnorm
// CHECK: %[[F:.+]]:2 = tg.fusion row(%arg0, %arg1) : (tensor<4x6x32xbf16>, tensor<32xbf16>) -> (tensor<4x6xbf16>, tensor<4x6x32xbf16>)
// CHECK: tg.reduce_mean {{.+}} axes = [2]
// CHECK: tg.rsqrt
// CHECK: tg.yield
// CHECK: return %[[F]]#1, %[[F]]#0
// CHECK-NOT: tg.fusion
func.func @rmsnorm(%x: tensor<4x6x32xbf16>, %w: tensor<32xbf16>) -> (tensor<4x6x32xbf16>, tensor<4x6xbf16>) {
  %sq = tg.mul %x, %x : tensor<4x6x32xbf16>
  %m = tg.reduce_mean %sq axes = [2] : tensor<4x6x32xbf16> to tensor<4x6xbf16>
  %eps = tg.constant dense<1.0e-5> : tensor<4x6xbf16>
  %a = tg.add %m, %eps : tensor<4x6xbf16>
  %r = tg.rsqrt %a : tensor<4x6xbf16>
  %rb = tg.broadcast %r dims = [0, 1] : tensor<4x6xbf16> to tensor<4x6x32xbf16>
  %y = tg.mul %x, %rb : tensor<4x6x32xbf16>
  %wb = tg.broadcast %w dims = [2] : tensor<32xbf16> to tensor<4x6x32xbf16>
  %z = tg.mul %y, %wb : tensor<4x6x32xbf16>
  return %z, %r : tensor<4x6x32xbf16>, tensor<4x6xbf16>
}

// -----

// Two reductions of the same rows that do not depend on each other (mean and mean of
// squares), joined by the variance computed from both: one kernel.
// CHECK-LABEL: func.func @variance
// CHECK: tg.fusion row
// CHECK-COUNT-2: tg.reduce_mean
// CHECK-NOT: tg.fusion
func.func @variance(%x: tensor<16x48xf32>) -> tensor<16x1xf32> {
  %m = tg.reduce_mean %x axes = [1] keep_dims : tensor<16x48xf32> to tensor<16x1xf32>
  %sq = tg.mul %x, %x : tensor<16x48xf32>
  %m2 = tg.reduce_mean %sq axes = [1] keep_dims : tensor<16x48xf32> to tensor<16x1xf32>
  %mm = tg.mul %m, %m : tensor<16x1xf32>
  %v = tg.sub %m2, %mm : tensor<16x1xf32>
  return %v : tensor<16x1xf32>
}

// -----

// A column reduction (over the leading dim) stays a reduction kernel; the remarks say why.
// CHECK-LABEL: func.func @column
// CHECK: tg.fusion elementwise
// CHECK: tg.fusion reduction
// CHECK: tg.fusion elementwise
// CHECK-NOT: tg.fusion row
func.func @column(%x: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-remark @+2 {{a 'tg.reduce_sum' over leading dims (not a row) reads its operand from memory}}
  // expected-remark @+1 {{fusing would create a cycle}}
  %e = tg.exp %x : tensor<64x32xf32>
  // expected-remark @+1 {{the producer is a 'tg.reduce_sum', which runs as its own kernel}}
  %s = tg.reduce_sum %e axes = [0] keep_dims : tensor<64x32xf32> to tensor<1x32xf32>
  %b = tg.broadcast %s dims = [0, 1] : tensor<1x32xf32> to tensor<64x32xf32>
  %d = tg.div %e, %b : tensor<64x32xf32>
  return %d : tensor<64x32xf32>
}

// -----

// A row softmax of a matmul's result: the matmul stays a gemm kernel (remark), the softmax
// one row kernel reading it.
// CHECK-LABEL: func.func @matmul_softmax
// CHECK: %[[G:.+]] = tg.fusion gemm
// CHECK: tg.fusion row(%[[G]])
// CHECK-NOT: tg.fusion
func.func @matmul_softmax(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>) -> tensor<64x16xf32> {
  // expected-remark @+2 {{the matmul at}}
  // expected-remark @+1 {{fusing would create a cycle}}
  %c = tg.matmul %a, %b : tensor<64x32xf32>, tensor<32x16xf32> -> tensor<64x16xf32>
  %m = tg.reduce_max %c axes = [1] keep_dims : tensor<64x16xf32> to tensor<64x1xf32>
  %mb = tg.broadcast %m dims = [0, 1] : tensor<64x1xf32> to tensor<64x16xf32>
  %s = tg.sub %c, %mb : tensor<64x16xf32>
  return %s : tensor<64x16xf32>
}

// -----

// Reductions of different rows are different kernels. (The exp of the second one's result,
// returned through a broadcast, is computed by the kernel that stores that broadcast: a
// reduction kernel remains.)
// CHECK-LABEL: func.func @two_row_shapes
// CHECK: tg.fusion row(%arg0) : (tensor<8x32xf32>) -> tensor<2x4xf32>
// CHECK: tg.fusion reduction(%{{.+}}) : (tensor<2x4xf32>) -> tensor<2xf32>
// CHECK: tg.fusion elementwise
// CHECK: tg.broadcast
// CHECK: tg.exp
// CHECK-NOT: tg.fusion
func.func @two_row_shapes(%x: tensor<8x32xf32>) -> tensor<8xf32> {
  %e = tg.exp %x : tensor<8x32xf32>
  %s = tg.reduce_sum %e axes = [1] : tensor<8x32xf32> to tensor<8xf32>
  %t = tg.tanh %s : tensor<8xf32>
  %r = tg.reshape %t : tensor<8xf32> to tensor<2x4xf32>
  // expected-remark @+1 {{reduce different rows}}
  %n = tg.neg %r : tensor<2x4xf32>
  // expected-remark @+1 {{not fused into 'tg.exp'}}
  %u = tg.reduce_sum %n axes = [1] : tensor<2x4xf32> to tensor<2xf32>
  %ub = tg.reshape %u : tensor<2xf32> to tensor<2xf32>
  %w = tg.exp %ub : tensor<2xf32>
  %o = tg.broadcast %w dims = [0] : tensor<2xf32> to tensor<2x4xf32>
  %q = tg.reshape %o : tensor<2x4xf32> to tensor<8xf32>
  return %q : tensor<8xf32>
}

// -----

// Few long rows (fewer than 8, longer than 16384) stay a reduction kernel, which splits each
// row over blocks; the remark says so.
// CHECK-LABEL: func.func @few_long_rows
// CHECK: tg.fusion elementwise
// CHECK: tg.fusion reduction
// CHECK-NOT: tg.fusion row
func.func @few_long_rows(%x: tensor<2x65536xf32>) -> tensor<2xf32> {
  // expected-remark @+1 {{a 'tg.reduce_sum' over 2 long row(s) of 65536 runs split over blocks as its own kernel, reading its operand from memory}}
  %e = tg.exp %x : tensor<2x65536xf32>
  %s = tg.reduce_sum %e axes = [1] : tensor<2x65536xf32> to tensor<2xf32>
  return %s : tensor<2xf32>
}
