func.func @add_positive_zero_kept_bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %zero = tg.constant dense<0.0> : tensor<4xbf16>
  %0 = tg.add %zero, %x : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
