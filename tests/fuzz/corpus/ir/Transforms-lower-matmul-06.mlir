func.func @gram_f32(%x: tensor<1024x2048xf32>) -> tensor<2048x2048xf32> {
  %0 = tg.matmul %x, %x transpose_a : tensor<1024x2048xf32>, tensor<1024x2048xf32> -> tensor<2048x2048xf32>
  return %0 : tensor<2048x2048xf32>
}
