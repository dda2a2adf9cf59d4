func.func @broadcast_splat() -> tensor<2x3x4xbf16> {
  %c = tg.constant dense<2.5> : tensor<3x1xbf16>
  %0 = tg.broadcast %c dims = [1, 2] : tensor<3x1xbf16> to tensor<2x3x4xbf16>
  return %0 : tensor<2x3x4xbf16>
}
