func.func @chain(%x: tensor<16xf32>, %y: tensor<16xf32>) -> tensor<16xf32> {
  %c = tg.constant dense<1.5> : tensor<16xf32>
  %0 = tg.mul %x, %c : tensor<16xf32>
  %1 = tg.add %0, %y : tensor<16xf32>
  %2 = tg.tanh %1 : tensor<16xf32>
  return %2 : tensor<16xf32>
}
