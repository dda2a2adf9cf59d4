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
