func.func @mul_mixed_shapes(%x: tensor<4xf32>, %y: tensor<1xf32>) {
  %0 = "tg.mul"(%x, %y) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return
}
