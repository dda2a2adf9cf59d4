func.func @layer_norm_bias_shape(%x: tensor<2x8xf32>, %b: tensor<4xf32>) {
  %0 = tg.layer_norm %x bias %b : tensor<4xf32> epsilon = 1.0e-05 : tensor<2x8xf32>
  return
}
