func.func @reduce_axes_unordered(%x: tensor<3x4xf32>) {
  %0 = tg.reduce_mean %x axes = [1, 0] : tensor<3x4xf32> to tensor<f32>
  return
}
