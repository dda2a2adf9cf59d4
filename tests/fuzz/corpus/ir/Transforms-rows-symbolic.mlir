
!x = tensor<?x?x64xbf16, #tg.sizes<[batch, seq, 64]>>
!y = tensor<?x1000xf32, #tg.sizes<[batch*seq, 1000]>>
!z = tensor<?x8192xbf16, #tg.sizes<[seq, 8192]>>
func.func @rows(%x: !x, %w: tensor<64xbf16>, %b: tensor<64xbf16>, %y: !y, %g: tensor<1000xf32>, %z: !z) -> (!x, !x, !y, !z) attributes {tg.symbols = [#tg.symbol<"batch", 1, 64>, #tg.symbol<"seq", 1, 4096>]} {
  %0 = tg.softmax %x axis = 2 : !x
  %1 = tg.layer_norm %x weight %w : tensor<64xbf16> bias %b : tensor<64xbf16> epsilon = 1.0e-05 : !x
  %2 = tg.mul %y, %y : !y
  %3 = tg.reduce_mean %2 axes = [1] keep_dims : !y to tensor<?x1xf32, #tg.sizes<[batch*seq, 1]>>
  %e = tg.constant dense<1.0e-06> : tensor<f32>
  %4 = tg.broadcast %e dims = [] : tensor<f32> to tensor<?x1xf32, #tg.sizes<[batch*seq, 1]>>
  %5 = tg.add %3, %4 : tensor<?x1xf32, #tg.sizes<[batch*seq, 1]>>
  %6 = tg.rsqrt %5 : tensor<?x1xf32, #tg.sizes<[batch*seq, 1]>>
  %7 = tg.broadcast %6 dims = [0, 1] : tensor<?x1xf32, #tg.sizes<[batch*seq, 1]>> to !y
  %8 = tg.mul %y, %7 : !y
  %9 = tg.broadcast %g dims = [1] : tensor<1000xf32> to !y
  %10 = tg.mul %8, %9 : !y
  %11 = tg.softmax %z axis = 1 : !z
  return %0, %1, %10, %11 : !x, !x, !y, !z
}
