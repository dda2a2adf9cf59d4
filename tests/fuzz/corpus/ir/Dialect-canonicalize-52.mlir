func.func @matmul_keeps_mixed_transpose(%a: tensor<16x2x8xf32>, %b: tensor<2x16x4xf32>) -> tensor<2x8x4xf32> {
  %at = tg.transpose %a perm = [1, 2, 0] : tensor<16x2x8xf32> to tensor<2x8x16xf32>
  %0 = tg.matmul %at, %b : tensor<2x8x16xf32>, tensor<2x16x4xf32> -> tensor<2x8x4xf32>
  return %0 : tensor<2x8x4xf32>
}
