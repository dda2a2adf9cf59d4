func.func @layer_norm_i32(%x: tensor<2x8xi32>) {
  %0 = tg.layer_norm %x epsilon = 1.0e-05 : tensor<2x8xi32>
  return
}
