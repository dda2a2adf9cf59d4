func.func @select_splat_condition(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %t = tg.constant dense<true> : tensor<4xi1>
  %f = tg.constant dense<false> : tensor<4xi1>
  %0 = tg.select %t, %x, %y : tensor<4xi1>, tensor<4xf32>
  %1 = tg.select %f, %x, %y : tensor<4xi1>, tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
