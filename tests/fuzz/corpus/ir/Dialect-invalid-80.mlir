func.func @matmul_result_transposed(%a: tensor<8x64xf32>, %b: tensor<32x64xf32>) {
  %0 = tg.matmul %a, %b transpose_b : tensor<8x64xf32>, tensor<32x64xf32> -> tensor<8x64xf32>
  return
}
