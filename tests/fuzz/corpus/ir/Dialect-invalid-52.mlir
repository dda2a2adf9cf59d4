func.func @reduce_axes_repeated(%x: tensor<3x4xf32>) {
  %0 = tg.reduce_sum %x axes = [1, 1] : tensor<3x4xf32> to tensor<3xf32>
  return
}
