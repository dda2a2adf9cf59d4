// RUN: tg-opt %s -split-input-file -tg-decompose | FileCheck %s
//
// softmax and layer_norm become reductions and elementwise ops, computed in f32.

// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>)
// CHECK: %[[MAX:.+]] = tg.reduce_max %[[X]] axes = [1] keep_dims : tensor<4x8xf32> to tensor<4x1xf32>
// CHECK: %[[MB:.+]] = tg.broadcast %[[MAX]] dims = [0, 1] : tensor<4x1xf32> to tensor<4x8xf32>
// CHECK: %[[D:.+]] = tg.sub %[[X]], %[[MB]]
// CHECK: %[[E:.+]] = tg.exp %[[D]]
// CHECK: %[[S:.+]] = tg.reduce_sum %[[E]] axes = [1] keep_dims
// CHECK: %[[SB:.+]] = tg.broadcast %[[S]]
// CHECK: %[[R:.+]] = tg.div %[[E]], %[[SB]]
// CHECK: return %[[R]]
// CHECK-NOT: tg.softmax
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tg.softmax %x axis = 1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// bf16 is widened to f32 for the whole computation and rounded once.
// CHECK-LABEL: func.func @softmax_bf16
// CHECK: %[[W:.+]] = tg.cast %{{.+}} : tensor<2x4xbf16> to tensor<2x4xf32>
// CHECK: tg.reduce_max %[[W]] axes = [0]
// CHECK: %[[Q:.+]] = tg.div
// CHECK: %[[N:.+]] = tg.cast %[[Q]] : tensor<2x4xf32> to tensor<2x4xbf16>
// CHECK: return %[[N]]
func.func @softmax_bf16(%x: tensor<2x4xbf16>) -> tensor<2x4xbf16> {
  %0 = tg.softmax %x axis = 0 : tensor<2x4xbf16>
  return %0 : tensor<2x4xbf16>
}

// -----

// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.+]]: tensor<3x8xf32>, %[[W:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK: %[[EPS:.+]] = tg.constant dense<9.99999974E-6> : tensor<3x1xf32>
// CHECK: %[[MEAN:.+]] = tg.reduce_mean %[[X]] axes = [1] keep_dims
// CHECK: %[[D:.+]] = tg.sub %[[X]], %{{.+}}
// CHECK: %[[SQ:.+]] = tg.mul %[[D]], %[[D]]
// CHECK: %[[VAR:.+]] = tg.reduce_mean %[[SQ]] axes = [1] keep_dims
// CHECK: %[[VE:.+]] = tg.add %[[VAR]], %[[EPS]]
// CHECK: tg.rsqrt %[[VE]]
// CHECK: tg.broadcast %[[W]] dims = [1] : tensor<8xf32> to tensor<3x8xf32>
// CHECK: tg.mul
// CHECK: tg.broadcast %[[B]] dims = [1]
// CHECK: tg.add
// CHECK-NOT: tg.layer_norm
func.func @layer_norm(%x: tensor<3x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<3x8xf32> {
  %0 = tg.layer_norm %x weight %w : tensor<8xf32> bias %b : tensor<8xf32> epsilon = 1.0e-05 : tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}
