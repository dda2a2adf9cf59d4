func.func @transpose_of_transpose_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = tg.transpose %x perm = [2, 0, 1] : tensor<2x3x4xf32> to tensor<4x2x3xf32>
  %1 = tg.transpose %0 perm = [1, 2, 0] : tensor<4x2x3xf32> to tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}
