func.func @layer_norm_weight_rank(%x: tensor<2x8xf32>, %w: tensor<2x8xf32>) {
  %0 = tg.layer_norm %x weight %w : tensor<2x8xf32> epsilon = 1.0e-05 : tensor<2x8xf32>
  return
}
