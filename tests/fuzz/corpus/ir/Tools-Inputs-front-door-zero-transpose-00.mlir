func.func @f(%x: tensor<2x0x3xf32>) -> tensor<0x2x3xf32> {
  %0 = tg.transpose %x perm = [1, 0, 2] : tensor<2x0x3xf32> to tensor<0x2x3xf32>
  return %0 : tensor<0x2x3xf32>
}
