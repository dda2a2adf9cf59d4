func.func @layer_norm(%x: tensor<3x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<3x8xf32> {
  %0 = tg.layer_norm %x weight %w : tensor<8xf32> bias %b : tensor<8xf32> epsilon = 1.0e-05 : tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}
