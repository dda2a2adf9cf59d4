!x = tensor<?x64xbf16, #tg.sizes<[batch*seq, 64]>>
!f = tensor<?x64xf32, #tg.sizes<[batch*seq, 64]>>
!r = tensor<?x1xf32, #tg.sizes<[batch*seq, 1]>>
func.func @matmul_and_reduction(%x: !f, %w: tensor<64x64xf32>) -> !r attributes {tg.symbols = [#tg.symbol<"batch", 1, 64>, #tg.symbol<"seq", 1, 512>]} {
  %0 = tg.matmul %x, %w : !f, tensor<64x64xf32> -> !f
  %1 = tg.relu %0 : !f
  %2 = tg.reduce_sum %1 axes = [1] keep_dims : !f to !r
  return %2 : !r
}