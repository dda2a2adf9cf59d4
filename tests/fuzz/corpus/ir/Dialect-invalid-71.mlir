func.func @layer_norm_result(%x: tensor<2x8xf32>) {
  %0 = "tg.layer_norm"(%x) <{epsilon = 1.0e-05 : f64, operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<2x8xf32>) -> tensor<2x8xf16>
  return
}
