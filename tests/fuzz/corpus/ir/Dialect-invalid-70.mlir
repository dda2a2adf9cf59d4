func.func @layer_norm_bias_after_weight(%x: tensor<2x8xf16>, %w: tensor<8xf16>, %b: tensor<8xf32>) {
  %0 = tg.layer_norm %x weight %w : tensor<8xf16> bias %b : tensor<8xf32> epsilon = 1.0e-05 : tensor<2x8xf16>
  return
}
