func.func @matmul_k_mismatch_transposed(%a: tensor<8x64xf32>, %b: tensor<16x64xf32>) {
  %0 = tg.matmul %a, %b transpose_a transpose_b : tensor<8x64xf32>, tensor<16x64xf32> -> tensor<64x16xf32>
  return
}
