func.func @f(%x: tensor<0xf32>) -> tensor<3x0xf32> {
  %0 = tg.broadcast %x dims = [1] : tensor<0xf32> to tensor<3x0xf32>
  return %0 : tensor<3x0xf32>
}
