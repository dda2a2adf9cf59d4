func.func @mlp_bf16(%x: tensor<4096x512xbf16>, %w: tensor<4096x512xbf16>, %b: tensor<4096xbf16>) -> tensor<4096x4096xbf16> {
  %0 = tg.matmul %x, %w transpose_b : tensor<4096x512xbf16>, tensor<4096x512xbf16> -> tensor<4096x4096xbf16>
  %1 = tg.broadcast %b dims = [1] : tensor<4096xbf16> to tensor<4096x4096xbf16>
  %2 = tg.add %0, %1 : tensor<4096x4096xbf16>
  %3 = tg.gelu %2 approximate = tanh : tensor<4096x4096xbf16>
  return %3 : tensor<4096x4096xbf16>
}
