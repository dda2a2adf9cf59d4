func.func @large_f32(%a: tensor<2048x512xf32>, %b: tensor<512x2048xf32>) -> tensor<2048x2048xf32> {
  %0 = tg.matmul %a, %b : tensor<2048x512xf32>, tensor<512x2048xf32> -> tensor<2048x2048xf32>
  return %0 : tensor<2048x2048xf32>
}
