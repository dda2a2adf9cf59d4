func.func @cast_shape(%x: tensor<4xf32>) {
  %0 = tg.cast %x : tensor<4xf32> to tensor<2x2xf16>
  return
}
