func.func @mul_by_one_bf16(%x: tensor<2x3xbf16>) -> tensor<2x3xbf16> {
  %one = tg.constant dense<1.0> : tensor<2x3xbf16>
  %0 = tg.mul %one, %x : tensor<2x3xbf16>
  return %0 : tensor<2x3xbf16>
}
