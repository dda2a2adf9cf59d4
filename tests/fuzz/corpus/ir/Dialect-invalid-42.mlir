func.func @broadcast_incompatible_size(%x: tensor<3xf32>) {
  %0 = tg.broadcast %x dims = [1] : tensor<3xf32> to tensor<3x4xf32>
  return
}
