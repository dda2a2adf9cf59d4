func.func @small_f16(%a: tensor<256x64xf16>, %b: tensor<64x128xf16>) -> tensor<256x128xf16> {
  %0 = tg.matmul %a, %b : tensor<256x64xf16>, tensor<64x128xf16> -> tensor<256x128xf16>
  return %0 : tensor<256x128xf16>
}
