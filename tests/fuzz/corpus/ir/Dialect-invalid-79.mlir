func.func @matmul_result(%a: tensor<8x64xf32>, %b: tensor<64x32xf32>) {
  %0 = tg.matmul %a, %b : tensor<8x64xf32>, tensor<64x32xf32> -> tensor<8x32xbf16>
  return
}
