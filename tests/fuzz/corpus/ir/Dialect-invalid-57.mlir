func.func @reduce_keep_dims_result(%x: tensor<3x4xf32>) {
  %0 = tg.reduce_sum %x axes = [1] keep_dims : tensor<3x4xf32> to tensor<3xf32>
  return
}
