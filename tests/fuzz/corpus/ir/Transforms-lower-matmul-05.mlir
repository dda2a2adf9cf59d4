func.func @transposed_a_f32(%a: tensor<512x2048xf32>, %w: tensor<2048x512xf32>) -> tensor<2048x2048xf32> {
  %0 = tg.matmul %a, %w transpose_a transpose_b : tensor<512x2048xf32>, tensor<2048x512xf32> -> tensor<2048x2048xf32>
  return %0 : tensor<2048x2048xf32>
}
