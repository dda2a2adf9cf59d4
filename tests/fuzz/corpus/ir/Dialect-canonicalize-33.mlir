func.func @broadcast_of_broadcast_middle(%x: tensor<3x1xi32>) -> tensor<3x2x5xi32> {
  %0 = tg.broadcast %x dims = [0, 1] : tensor<3x1xi32> to tensor<3x5xi32>
  %1 = tg.broadcast %0 dims = [0, 2] : tensor<3x5xi32> to tensor<3x2x5xi32>
  return %1 : tensor<3x2x5xi32>
}
