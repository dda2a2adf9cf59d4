func.func @select_mixed_condition(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %c = tg.constant dense<[true, false]> : tensor<2xi1>
  %0 = tg.select %c, %x, %y : tensor<2xi1>, tensor<2xf32>
  return %0 : tensor<2xf32>
}
