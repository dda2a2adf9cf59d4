func.func @matmul_absorb_transpose_a(%a: tensor<64x8xf32>, %b: tensor<64x32xf32>) -> tensor<8x32xf32> {
  %at = tg.transpose %a perm = [1, 0] : tensor<64x8xf32> to tensor<8x64xf32>
  %0 = tg.matmul %at, %b : tensor<8x64xf32>, tensor<64x32xf32> -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}
