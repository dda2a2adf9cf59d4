func.func @broadcast_dims_not_increasing(%x: tensor<4x3xf32>) {
  %0 = tg.broadcast %x dims = [1, 0] : tensor<4x3xf32> to tensor<3x4xf32>
  return
}
