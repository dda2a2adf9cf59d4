func.func @mul_by_one(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %one = tg.constant dense<1.0> : tensor<4xf32>
  %0 = tg.mul %x, %one : tensor<4xf32>
  %1 = tg.mul %one, %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
