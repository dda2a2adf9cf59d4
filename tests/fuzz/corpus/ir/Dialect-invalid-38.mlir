func.func @broadcast_dim_out_of_range(%x: tensor<4xf32>) {
  %0 = tg.broadcast %x dims = [2] : tensor<4xf32> to tensor<3x4xf32>
  return
}
