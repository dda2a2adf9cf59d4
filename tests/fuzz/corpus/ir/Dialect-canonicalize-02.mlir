func.func @mul_not_by_one(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %two = tg.constant dense<2.0> : tensor<2xf32>
  %mixed = tg.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = tg.mul %x, %two : tensor<2xf32>
  %1 = tg.mul %x, %mixed : tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}
