func.func @div_by_one(%x: tensor<4xf16>) -> tensor<4xf16> {
  %one = tg.constant dense<1.0> : tensor<4xf16>
  %0 = tg.div %x, %one : tensor<4xf16>
  return %0 : tensor<4xf16>
}
