func.func @matmul_dtype_mismatch(%a: tensor<4x4xbf16>, %b: tensor<4x4xf16>) {
  %0 = tg.matmul %a, %b : tensor<4x4xbf16>, tensor<4x4xf16> -> tensor<4x4xbf16>
  return
}
