func.func @layer_norm_weight_dtype(%x: tensor<2x8xbf16>, %w: tensor<8xf32>) {
  %0 = tg.layer_norm %x weight %w : tensor<8xf32> epsilon = 1.0e-05 : tensor<2x8xbf16>
  return
}
