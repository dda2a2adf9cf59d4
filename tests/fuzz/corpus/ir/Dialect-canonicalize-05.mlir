func.func @sub_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = tg.constant dense<0.0> : tensor<4xf32>
  %0 = tg.sub %x, %zero : tensor<4xf32>
  return %0 : tensor<4xf32>
}
