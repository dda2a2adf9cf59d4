func.func @unaligned(%a: tensor<17x33xbf16>, %b: tensor<65x33xbf16>) -> tensor<17x65xbf16> {
  %0 = tg.matmul %a, %b transpose_b : tensor<17x33xbf16>, tensor<65x33xbf16> -> tensor<17x65xbf16>
  return %0 : tensor<17x65xbf16>
}
