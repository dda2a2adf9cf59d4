func.func @transpose_result_shape(%x: tensor<3x4xf32>) {
  %0 = tg.transpose %x perm = [1, 0] : tensor<3x4xf32> to tensor<3x4xf32>
  return
}
