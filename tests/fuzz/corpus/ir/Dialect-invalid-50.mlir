func.func @reduce_axis_out_of_range(%x: tensor<3x4xf32>) {
  %0 = tg.reduce_sum %x axes = [2] : tensor<3x4xf32> to tensor<3xf32>
  return
}
