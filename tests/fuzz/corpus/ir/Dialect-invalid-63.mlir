func.func @layer_norm_rank0(%x: tensor<f32>) {
  %0 = tg.layer_norm %x epsilon = 1.0e-05 : tensor<f32>
  return
}
