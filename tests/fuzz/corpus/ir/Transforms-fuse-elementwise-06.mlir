func.func @kinds(%a: tensor<2x3x4xf32>, %w: tensor<4x5xf32>) -> tensor<2x5xf32> {
  %wb = tg.broadcast %w dims = [1, 2] : tensor<4x5xf32> to tensor<2x4x5xf32>
  %m = tg.matmul %a, %wb : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  %r = tg.reduce_max %m axes = [1] : tensor<2x3x5xf32> to tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}
