func.func @unary_result_type(%x: tensor<4xf32>) {
  %0 = "tg.tanh"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return
}
