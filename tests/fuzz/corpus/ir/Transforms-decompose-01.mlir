func.func @softmax_bf16(%x: tensor<2x4xbf16>) -> tensor<2x4xbf16> {
  %0 = tg.softmax %x axis = 0 : tensor<2x4xbf16>
  return %0 : tensor<2x4xbf16>
}
