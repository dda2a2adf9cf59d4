// RUN: tg-opt %s --canonicalize -split-input-file | FileCheck %s
//
// The folds on tensors with dynamic dims (#tg.sizes): a splat over them stays a broadcast of
// one element (a constant has a static type), layout folds keep the symbolic types (a
// transpose of an extent-1 dim becomes a reshape to the same #tg.sizes type, reshapes compose),
// and nothing reads a `?` extent as a number.

// CHECK-LABEL: func.func @f
// CHECK-DAG: %[[ONE:.+]] = tg.constant dense<1.000000e+00> : tensor<f32>
// CHECK-DAG: %[[TWO:.+]] = tg.constant dense<2.000000e+00> : tensor<f32>
// CHECK-DAG: tg.broadcast %[[TWO]] dims = [] : tensor<f32> to tensor<?x16xf32, #tg.sizes<[n, 16]>>
// CHECK-DAG: tg.broadcast %[[ONE]] dims = [] : tensor<f32> to tensor<?x16xf32, #tg.sizes<[n, 16]>>
// CHECK: %[[SUM:.+]] = tg.reduce_sum %arg0 axes = [1] keep_dims
// CHECK-NEXT: tg.reshape %[[SUM]] : tensor<?x1xf32, #tg.sizes<[n, 1]>> to tensor<1x?xf32, #tg.sizes<[1, n]>>
// CHECK-NOT: tg.transpose
!x = tensor<?x16xf32, #tg.sizes<[n, 16]>>
!s = tensor<?x8xf32, #tg.sizes<[n, 8]>>
func.func @f(%x: !x) -> (!x, tensor<1x?xf32, #tg.sizes<[1, n]>>) attributes {tg.symbols = [#tg.symbol<"n", 1, 64>]} {
  %c = tg.constant dense<2.0> : tensor<f32>
  %b = tg.broadcast %c dims = [] : tensor<f32> to !x
  %one = tg.constant dense<1.0> : tensor<f32>
  %b1 = tg.broadcast %one dims = [] : tensor<f32> to !x
  %m = tg.mul %x, %b1 : !x
  %a = tg.add %b, %b : !x
  %y = tg.add %m, %a : !x

  %r = tg.reshape %x : !x to tensor<?xf32, #tg.sizes<[16*n]>>
  %q = tg.reshape %r : tensor<?xf32, #tg.sizes<[16*n]>> to !x
  %u = tg.reduce_sum %q axes = [1] keep_dims : !x to tensor<?x1xf32, #tg.sizes<[n, 1]>>
  %v = tg.transpose %u perm = [1, 0] : tensor<?x1xf32, #tg.sizes<[n, 1]>> to tensor<1x?xf32, #tg.sizes<[1, n]>>
  return %y, %v : !x, tensor<1x?xf32, #tg.sizes<[1, n]>>
}

// -----

// Symbolic bounds between static types are not composed (their integers hold `?`).
// CHECK-LABEL: func.func @window_of_a_window
// CHECK: %[[W:.+]] = tg.slice %arg0 starts = [T] limits = [T + 8] steps = [1] : tensor<64xf32> to tensor<8xf32>
// CHECK: tg.slice %[[W]] starts = [2] limits = [4] steps = [1] : tensor<8xf32> to tensor<2xf32>
func.func @window_of_a_window(%c: tensor<64xf32>) -> tensor<2xf32> attributes {tg.symbols = [#tg.symbol<"T", 1, 32>]} {
  %0 = tg.slice %c starts = [T] limits = [T + 8] steps = [1] : tensor<64xf32> to tensor<8xf32>
  %1 = tg.slice %0 starts = [2] limits = [4] steps = [1] : tensor<8xf32> to tensor<2xf32>
  return %1 : tensor<2xf32>
}

// -----

// Keys split into heads over dynamic dims: the transpose read as transpose_b keeps the sizes.
// CHECK-LABEL: func.func @keys_split_into_heads
// CHECK: %[[T:.+]] = tg.transpose %arg1 perm = [0, 2, 1, 3] : tensor<?x?x4x16xf32, #tg.sizes<[b, s, 4, 16]>> to tensor<?x4x?x16xf32, #tg.sizes<[b, 4, s, 16]>>
// CHECK: tg.matmul %arg0, %[[T]] transpose_b
func.func @keys_split_into_heads(%q: tensor<?x4x?x16xf32, #tg.sizes<[b, 4, s, 16]>>, %k: tensor<?x?x4x16xf32, #tg.sizes<[b, s, 4, 16]>>) -> tensor<?x4x?x?xf32, #tg.sizes<[b, 4, s, s]>> attributes {tg.symbols = [#tg.symbol<"b", 1, 8>, #tg.symbol<"s", 1, 64>]} {
  %kt = tg.transpose %k perm = [0, 2, 3, 1] : tensor<?x?x4x16xf32, #tg.sizes<[b, s, 4, 16]>> to tensor<?x4x16x?xf32, #tg.sizes<[b, 4, 16, s]>>
  %0 = tg.matmul %q, %kt : tensor<?x4x?x16xf32, #tg.sizes<[b, 4, s, 16]>>, tensor<?x4x16x?xf32, #tg.sizes<[b, 4, 16, s]>> -> tensor<?x4x?x?xf32, #tg.sizes<[b, 4, s, s]>>
  return %0 : tensor<?x4x?x?xf32, #tg.sizes<[b, 4, s, s]>>
}
