func.func @broadcast_of_broadcast(%x: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %0 = tg.broadcast %x dims = [1] : tensor<4xf32> to tensor<3x4xf32>
  %1 = tg.broadcast %0 dims = [1, 2] : tensor<3x4xf32> to tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}
