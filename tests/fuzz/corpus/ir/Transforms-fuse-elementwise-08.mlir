func.func @linear_gelu(%x: tensor<64x32xbf16>, %w: tensor<48x32xbf16>, %b: tensor<48xbf16>) -> tensor<64x48xbf16> {
  %0 = tg.matmul %x, %w transpose_b : tensor<64x32xbf16>, tensor<48x32xbf16> -> tensor<64x48xbf16>
  %1 = tg.broadcast %b dims = [1] : tensor<48xbf16> to tensor<64x48xbf16>
  %2 = tg.add %0, %1 : tensor<64x48xbf16>
  %3 = tg.gelu %2 approximate = tanh : tensor<64x48xbf16>
  return %3 : tensor<64x48xbf16>
}
