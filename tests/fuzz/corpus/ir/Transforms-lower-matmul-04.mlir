func.func @linear_f32(%x: tensor<2048x512xf32>, %w: tensor<2048x512xf32>) -> tensor<2048x2048xf32> {
  %0 = tg.matmul %x, %w transpose_b : tensor<2048x512xf32>, tensor<2048x512xf32> -> tensor<2048x2048xf32>
  return %0 : tensor<2048x2048xf32>
}
