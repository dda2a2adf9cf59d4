func.func @large_bf16(%a: tensor<4096x512xbf16>, %b: tensor<4096x512xbf16>) -> tensor<4096x4096xbf16> {
  %0 = tg.matmul %a, %b transpose_b : tensor<4096x512xbf16>, tensor<4096x512xbf16> -> tensor<4096x4096xbf16>
  return %0 : tensor<4096x4096xbf16>
}
