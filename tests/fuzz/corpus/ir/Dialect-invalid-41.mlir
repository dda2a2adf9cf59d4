func.func @broadcast_dims_repeated(%x: tensor<1x1xf32>) {
  %0 = tg.broadcast %x dims = [0, 0] : tensor<1x1xf32> to tensor<3x4xf32>
  return
}
