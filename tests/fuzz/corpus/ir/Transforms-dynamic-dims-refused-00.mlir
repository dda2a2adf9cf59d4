// Ops on symbolic types verify by the concrete shape rules at sample sizes of the symbols.
// CHECK-LABEL: func.func @block
// CHECK: tg.reshape %{{.+}} : tensor<?x?x16xf32, #tg.sizes<[batch, seq, 16]>> to tensor<?x16xf32, #tg.sizes<[batch*seq, 16]>>
// CHECK: tg.matmul %{{.+}}, %{{.+}} : tensor<?x16xf32, #tg.sizes<[batch*seq, 16]>>, tensor<16x32xf32> -> tensor<?x32xf32, #tg.sizes<[batch*seq, 32]>>
// CHECK: tg.cmp lt, %{{.+}}, %{{.+}} : tensor<?x32xi32, #tg.sizes<[batch*seq, 32]>>
// CHECK: tg.reduce_sum %{{.+}} axes = [1] : tensor<?x?x16xf32, #tg.sizes<[batch, seq, 16]>> to tensor<?x16xf32, #tg.sizes<[batch, 16]>>
!x = tensor<?x?x16xf32, #tg.sizes<[batch, seq, 16]>>
!r = tensor<?x16xf32, #tg.sizes<[batch*seq, 16]>>
func.func @block(%x: !x, %w: tensor<16x32xf32>) -> tensor<?x32xf32, #tg.sizes<[seq*batch, 32]>>
    attributes {tg.symbols = [#tg.symbol<"batch", 1, 256>, #tg.symbol<"seq", 1, 8192>]} {
  %0 = tg.relu %x : !x
  %1 = tg.reshape %0 : !x to !r
  %2 = tg.softmax %1 axis = 1 : !r
  %3 = tg.matmul %2, %w : !r, tensor<16x32xf32> -> tensor<?x32xf32, #tg.sizes<[batch*seq, 32]>>
  %4 = tg.iota axis = 1 : tensor<?x32xi32, #tg.sizes<[batch*seq, 32]>>
  %5 = tg.iota axis = 0 : tensor<?x32xi32, #tg.sizes<[batch*seq, 32]>>
  %6 = tg.cmp lt, %4, %5 : tensor<?x32xi32, #tg.sizes<[batch*seq, 32]>>
  %7 = tg.reduce_sum %x axes = [1] : !x to tensor<?x16xf32, #tg.sizes<[batch, 16]>>
  return %3 : tensor<?x32xf32, #tg.sizes<[batch*seq, 32]>>
}
