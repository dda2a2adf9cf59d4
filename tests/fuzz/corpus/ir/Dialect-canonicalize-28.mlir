func.func @broadcast_identity(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = tg.broadcast %x dims = [0, 1] : tensor<3x4xf32> to tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
