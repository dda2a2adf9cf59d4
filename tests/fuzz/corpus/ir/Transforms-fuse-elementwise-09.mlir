func.func @epilogue_limits(%x: tensor<8x16xf16>, %w: tensor<16x8xf16>, %r: tensor<8x8xf16>) -> (tensor<8x8xf16>, tensor<8x8xf16>, tensor<8x8xf16>) {
  %h = tg.constant dense<0.5> : tensor<8x8xf16>
  %e = tg.exp %x : tensor<8x16xf16>
  %rs = tg.mul %r, %h : tensor<8x8xf16>
  %0 = tg.matmul %e, %w : tensor<8x16xf16>, tensor<16x8xf16> -> tensor<8x8xf16>
  %1 = tg.add %0, %rs : tensor<8x8xf16>
  %2 = tg.matmul %1, %1 : tensor<8x8xf16>, tensor<8x8xf16> -> tensor<8x8xf16>
  return %0, %1, %2 : tensor<8x8xf16>, tensor<8x8xf16>, tensor<8x8xf16>
}
