func.func @one_div_x(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = tg.constant dense<1.0> : tensor<4xf32>
  %0 = tg.div %one, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
