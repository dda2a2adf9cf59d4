func.func @reduce_result(%x: tensor<3x4xf32>) {
  %0 = tg.reduce_max %x axes = [1] : tensor<3x4xf32> to tensor<3x1xf32>
  return
}
