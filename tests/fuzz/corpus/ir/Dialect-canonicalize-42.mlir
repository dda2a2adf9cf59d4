func.func @transpose_of_transpose_shared(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %0 = tg.transpose %x perm = [1, 0] : tensor<2x3xf32> to tensor<3x2xf32>
  %1 = tg.transpose %0 perm = [1, 0] : tensor<3x2xf32> to tensor<2x3xf32>
  %2 = tg.exp %1 : tensor<2x3xf32>
  return %0, %2 : tensor<3x2xf32>, tensor<2x3xf32>
}
