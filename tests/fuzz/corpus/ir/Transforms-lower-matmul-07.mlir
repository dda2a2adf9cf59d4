func.func @batched_f32(%a: tensor<3x200x64xf32>, %b: tensor<64x300xf32>) -> tensor<3x200x300xf32> {
  %0 = tg.matmul %a, %b : tensor<3x200x64xf32>, tensor<64x300xf32> -> tensor<3x200x300xf32>
  return %0 : tensor<3x200x300xf32>
}
