// Slice bounds and update offsets that depend on symbols: `?` in the integers, sizes beside.
// CHECK-LABEL: func.func @bounds
// CHECK: tg.slice %{{.+}} starts = [0, 0] limits = [T, 4] steps = [1, 1] : tensor<?x8xf32, #tg.sizes<[T, 8]>> to tensor<?x4xf32, #tg.sizes<[T, 4]>>
// CHECK: tg.slice %{{.+}} starts = [T - 1, 0] limits = [T, 8] steps = [1, 1] : tensor<?x8xf32, #tg.sizes<[T, 8]>> to tensor<1x8xf32>
// CHECK: tg.slice %{{.+}} starts = [0] limits = [T + 4] steps = [1] : tensor<64xf32> to tensor<?xf32, #tg.sizes<[T + 4]>>
// CHECK: tg.dynamic_update_slice %{{.+}}, %{{.+}}, %{{.+}} axis = 1 offsets = [T - 1, 0, 0] check = 1
// CHECK: tg.dynamic_update_slice %{{.+}}, %{{.+}}, %{{.+}} axis = 1 offsets = [2, 0, 0] check = 1
!x = tensor<?x8xf32, #tg.sizes<[T, 8]>>
func.func @bounds(%x: !x, %c: tensor<64xf32>, %cache: tensor<16x8x4xf32>, %u: tensor<1x?x4xf32, #tg.sizes<[1, T, 4]>>,
                  %p: tensor<i32>) attributes {tg.symbols = [#tg.symbol<"T", 1, 8>]} {
  %0 = tg.slice %x starts = [0, 0] limits = [T, 4] steps = [1, 1] : !x to tensor<?x4xf32, #tg.sizes<[T, 4]>>
  %1 = tg.slice %x starts = [T - 1, 0] limits = [T, 8] steps = [1, 1] : !x to tensor<1x8xf32>
  %2 = tg.slice %c starts = [0] limits = [4 + T] steps = [1] : tensor<64xf32> to tensor<?xf32, #tg.sizes<[T + 4]>>
  %3 = tg.dynamic_update_slice %cache, %u, %p axis = 1 offsets = [T - 1, 0, 0] check = 1
       : (tensor<16x8x4xf32>, tensor<1x?x4xf32, #tg.sizes<[1, T, 4]>>, tensor<i32>) -> tensor<16x8x4xf32>
  // A constant written as a sum is a plain integer.
  %4 = tg.dynamic_update_slice %cache, %u, %p axis = 1 offsets = [3 - 1, 0, 0] check = 1
       : (tensor<16x8x4xf32>, tensor<1x?x4xf32, #tg.sizes<[1, T, 4]>>, tensor<i32>) -> tensor<16x8x4xf32>
  return
}
