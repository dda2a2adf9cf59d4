func.func @reduce_axis_negative(%x: tensor<3x4xf32>) {
  %0 = tg.reduce_max %x axes = [-1] : tensor<3x4xf32> to tensor<3xf32>
  return
}
