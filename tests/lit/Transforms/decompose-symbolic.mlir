// RUN: tg-opt %s --tg-decompose | FileCheck %s
//
// softmax and layer_norm over dynamic dims (tg.symbols: issue 18) decompose as over static
// ones; every result type comes from the shape rules at sample sizes (SymbolicInference.h), so
// the reductions keep `n` and the broadcasts go back to [n, 16]. A splat cannot have a type
// with dynamic dims: epsilon is one element, broadcast.

!x = tensor<?x16xbf16, #tg.sizes<[n, 16]>>
!w = tensor<16xbf16>

// CHECK-LABEL: func.func @softmax
// CHECK: %[[X:.+]] = tg.cast %{{.+}} : tensor<?x16xbf16, #tg.sizes<[n, 16]>> to tensor<?x16xf32, #tg.sizes<[n, 16]>>
// CHECK: %[[MAX:.+]] = tg.reduce_max %[[X]] axes = [1] keep_dims : tensor<?x16xf32, #tg.sizes<[n, 16]>> to tensor<?x1xf32, #tg.sizes<[n, 1]>>
// CHECK: tg.broadcast %[[MAX]] dims = [0, 1] : tensor<?x1xf32, #tg.sizes<[n, 1]>> to tensor<?x16xf32, #tg.sizes<[n, 16]>>
// CHECK: tg.exp
// CHECK: tg.reduce_sum {{.+}} to tensor<?x1xf32, #tg.sizes<[n, 1]>>
// CHECK: tg.div
// CHECK: tg.cast {{.+}} to tensor<?x16xbf16, #tg.sizes<[n, 16]>>
// CHECK-NOT: tg.softmax
func.func @softmax(%x: !x) -> !x attributes {tg.symbols = [#tg.symbol<"n", 1, 64>]} {
  %0 = tg.softmax %x axis = 1 : !x
  return %0 : !x
}

// CHECK-LABEL: func.func @layer_norm
// CHECK: %[[EPS:.+]] = tg.constant dense<9.99999974E-6> : tensor<f32>
// CHECK: tg.reduce_mean
// CHECK: tg.mul
// CHECK: %[[VAR:.+]] = tg.reduce_mean %{{.+}} axes = [1] keep_dims : tensor<?x16xf32, #tg.sizes<[n, 16]>> to tensor<?x1xf32, #tg.sizes<[n, 1]>>
// CHECK: %[[E:.+]] = tg.broadcast %[[EPS]] dims = [] : tensor<f32> to tensor<?x1xf32, #tg.sizes<[n, 1]>>
// CHECK: tg.add %[[VAR]], %[[E]] : tensor<?x1xf32, #tg.sizes<[n, 1]>>
// CHECK: tg.broadcast %{{.+}} dims = [1] : tensor<16xbf16> to tensor<?x16xbf16, #tg.sizes<[n, 16]>>
// CHECK-NOT: tg.layer_norm
func.func @layer_norm(%x: !x, %w: !w, %b: !w) -> !x attributes {tg.symbols = [#tg.symbol<"n", 1, 64>]} {
  %0 = tg.layer_norm %x weight %w : !w bias %b : !w epsilon = 1.0e-05 : !x
  return %0 : !x
}
