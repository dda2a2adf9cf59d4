func.func @main(%x: tensor<8192x64xbf16>, %w: tensor<4096x64xbf16>, %b: tensor<4096xbf16>) -> tensor<8192x4096xbf16> {
  %0 = tg.matmul %x, %w transpose_b : tensor<8192x64xbf16>, tensor<4096x64xbf16> -> tensor<8192x4096xbf16>
  %1 = tg.broadcast %b dims = [1] : tensor<4096xbf16> to tensor<8192x4096xbf16>
  %2 = tg.add %0, %1 : tensor<8192x4096xbf16>
  %3 = tg.gelu %2 approximate = tanh : tensor<8192x4096xbf16>
  return %3 : tensor<8192x4096xbf16>
}
