func.func @transpose_square_kept(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = tg.transpose %x perm = [1, 0] : tensor<4x4xf32> to tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
