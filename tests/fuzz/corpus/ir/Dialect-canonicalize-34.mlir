func.func @reshape_identity(%x: tensor<2x6xf16>) -> tensor<2x6xf16> {
  %0 = tg.reshape %x : tensor<2x6xf16> to tensor<2x6xf16>
  return %0 : tensor<2x6xf16>
}
