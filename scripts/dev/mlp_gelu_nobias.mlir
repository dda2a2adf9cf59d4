func.func @main(%x: tensor<8192x4096xbf16>, %w: tensor<4096x4096xbf16>, %b: tensor<4096xbf16>) -> tensor<8192x4096xbf16> {
  %0 = tg.matmul %x, %w transpose_b : tensor<8192x4096xbf16>, tensor<4096x4096xbf16> -> tensor<8192x4096xbf16>
  %3 = tg.gelu %0 approximate = tanh : tensor<8192x4096xbf16>
  return %3 : tensor<8192x4096xbf16>
}
