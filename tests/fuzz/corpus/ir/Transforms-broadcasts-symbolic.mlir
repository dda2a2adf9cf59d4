
!x = tensor<?x24xf32, #tg.sizes<[batch*seq, 24]>>
!c = tensor<?x1xf32, #tg.sizes<[batch*seq, 1]>>
!b = tensor<?x?x24xf32, #tg.sizes<[batch, seq, 24]>>
func.func @broadcasts(%x: !x, %bias: tensor<24xbf16>, %scale: !c, %s: tensor<f32>, %p: tensor<5x24xf32>) -> (!x, !b) attributes {tg.symbols = [#tg.symbol<"batch", 1, 64>, #tg.symbol<"seq", 1, 4096>]} {
  %0 = tg.cast %bias : tensor<24xbf16> to tensor<24xf32>
  %1 = tg.broadcast %0 dims = [1] : tensor<24xf32> to !x
  %2 = tg.add %x, %1 : !x
  %3 = tg.broadcast %scale dims = [0, 1] : !c to !x
  %4 = tg.mul %2, %3 : !x
  %5 = tg.broadcast %s dims = [] : tensor<f32> to !x
  %6 = tg.sub %4, %5 : !x
  %7 = tg.slice %p starts = [2, 0] limits = [3, 24] steps = [1, 1] : tensor<5x24xf32> to tensor<1x24xf32>
  %8 = tg.reshape %7 : tensor<1x24xf32> to tensor<24xf32>
  %9 = tg.broadcast %8 dims = [2] : tensor<24xf32> to !b
  %10 = tg.reshape %6 : !x to !b
  %11 = tg.mul %10, %9 : !b
  return %6, %11 : !x, !b
}
