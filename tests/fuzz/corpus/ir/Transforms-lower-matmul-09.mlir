func.func @unaligned_f32(%a: tensor<64x32xf32>, %b: tensor<32x18xf32>) -> tensor<64x18xf32> {
  %0 = tg.matmul %a, %b : tensor<64x32xf32>, tensor<32x18xf32> -> tensor<64x18xf32>
  return %0 : tensor<64x18xf32>
}
