func.func @transpose_perm_repeated(%x: tensor<3x4xf32>) {
  %0 = tg.transpose %x perm = [0, 0] : tensor<3x4xf32> to tensor<3x3xf32>
  return
}
