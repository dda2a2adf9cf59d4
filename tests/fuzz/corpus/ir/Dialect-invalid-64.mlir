func.func @layer_norm_negative_epsilon(%x: tensor<2x8xf32>) {
  %0 = tg.layer_norm %x epsilon = -1.0e-05 : tensor<2x8xf32>
  return
}
