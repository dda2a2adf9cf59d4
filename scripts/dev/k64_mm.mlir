func.func @main(%x: tensor<8192x64xbf16>, %w: tensor<4096x64xbf16>) -> tensor<8192x4096xbf16> {
  %0 = tg.matmul %x, %w transpose_b : tensor<8192x64xbf16>, tensor<4096x64xbf16> -> tensor<8192x4096xbf16>
  return %0 : tensor<8192x4096xbf16>
}
