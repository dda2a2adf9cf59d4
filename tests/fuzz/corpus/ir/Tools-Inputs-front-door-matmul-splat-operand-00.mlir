func.func @f(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c = tg.constant dense<2.0> : tensor<64x64xf32>
  %y = tg.matmul %x, %c : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}
