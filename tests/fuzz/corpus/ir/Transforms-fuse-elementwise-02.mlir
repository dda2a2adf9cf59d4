func.func @bias(%x: tensor<3x4xf32>, %v: tensor<4xf32>) -> tensor<3x4xf32> {
  %b = tg.broadcast %v dims = [1] : tensor<4xf32> to tensor<3x4xf32>
  %0 = tg.add %x, %b : tensor<3x4xf32>
  %1 = tg.relu %0 : tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}
