func.func @transpose_perm_out_of_range(%x: tensor<3x4xf32>) {
  %0 = tg.transpose %x perm = [2, 0] : tensor<3x4xf32> to tensor<4x3xf32>
  return
}
