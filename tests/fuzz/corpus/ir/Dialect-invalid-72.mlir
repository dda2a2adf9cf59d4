func.func @matmul_k_mismatch(%a: tensor<8x64xf32>, %b: tensor<32x16xf32>) {
  %0 = tg.matmul %a, %b : tensor<8x64xf32>, tensor<32x16xf32> -> tensor<8x16xf32>
  return
}
