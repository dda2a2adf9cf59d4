func.func @matmul_keeps_batch_transpose(%a: tensor<4x2x8x16xf32>, %b: tensor<2x4x16x8xf32>) -> tensor<2x4x8x8xf32> {
  %at = tg.transpose %a perm = [1, 0, 2, 3] : tensor<4x2x8x16xf32> to tensor<2x4x8x16xf32>
  %0 = tg.matmul %at, %b : tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}
