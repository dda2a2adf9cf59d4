func.func @transpose_perm_length(%x: tensor<3x4xf32>) {
  %0 = tg.transpose %x perm = [1, 0, 2] : tensor<3x4xf32> to tensor<4x3xf32>
  return
}
