func.func @f(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>) {
  %bb = tg.broadcast %b dims = [1] : tensor<3xf32> to tensor<2x3xf32>
  %y = tg.add %x, %bb : tensor<2x3xf32>
  %m = tg.reduce_max %y axes = [1] : tensor<2x3xf32> to tensor<2xf32>
  return %y, %m : tensor<2x3xf32>, tensor<2xf32>
}
