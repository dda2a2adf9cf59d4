func.func @transpose_of_transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = tg.transpose %x perm = [1, 0, 2] : tensor<2x3x4xf32> to tensor<3x2x4xf32>
  %1 = tg.transpose %0 perm = [2, 1, 0] : tensor<3x2x4xf32> to tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}
