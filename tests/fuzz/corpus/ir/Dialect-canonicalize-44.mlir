func.func @reduce_no_axes(%x: tensor<3x4xf32>, %i: tensor<5xi32>) -> (tensor<3x4xf32>, tensor<5xi32>, tensor<3x4xf32>) {
  %0 = tg.reduce_sum %x axes = [] : tensor<3x4xf32> to tensor<3x4xf32>
  %1 = tg.reduce_max %i axes = [] keep_dims : tensor<5xi32> to tensor<5xi32>
  %2 = tg.reduce_mean %x axes = [] : tensor<3x4xf32> to tensor<3x4xf32>
  return %0, %1, %2 : tensor<3x4xf32>, tensor<5xi32>, tensor<3x4xf32>
}
