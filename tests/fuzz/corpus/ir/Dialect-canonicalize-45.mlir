func.func @reduce_unit_dim_kept(%x: tensor<3x1xf32>) -> tensor<3x1xf32> {
  %0 = tg.reduce_sum %x axes = [1] keep_dims : tensor<3x1xf32> to tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}
