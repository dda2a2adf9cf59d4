func.func @computed_broadcast(%x: tensor<3x4xf32>, %v: tensor<4xf32>) -> tensor<3x4xf32> {
  %e = tg.exp %v : tensor<4xf32>
  %b = tg.broadcast %e dims = [1] : tensor<4xf32> to tensor<3x4xf32>
  %0 = tg.add %x, %b : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
