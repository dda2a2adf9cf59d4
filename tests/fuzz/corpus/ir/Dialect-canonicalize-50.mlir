func.func @matmul_absorb_shared_weight(%x: tensor<3x5x16xf32>, %w: tensor<7x16xf32>) -> tensor<3x5x7xf32> {
  %wt = tg.transpose %w perm = [1, 0] : tensor<7x16xf32> to tensor<16x7xf32>
  %0 = tg.matmul %x, %wt : tensor<3x5x16xf32>, tensor<16x7xf32> -> tensor<3x5x7xf32>
  return %0 : tensor<3x5x7xf32>
}
