func.func @broadcast_dims_count(%x: tensor<3x4xf32>) {
  %0 = tg.broadcast %x dims = [1] : tensor<3x4xf32> to tensor<2x3x4xf32>
  return
}
