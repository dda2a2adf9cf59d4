func.func @matmul_absorb_transpose_b(%x: tensor<8x64xbf16>, %w: tensor<32x64xbf16>) -> tensor<8x32xbf16> {
  %wt = tg.transpose %w perm = [1, 0] : tensor<32x64xbf16> to tensor<64x32xbf16>
  %0 = tg.matmul %x, %wt : tensor<8x64xbf16>, tensor<64x32xbf16> -> tensor<8x32xbf16>
  return %0 : tensor<8x32xbf16>
}
