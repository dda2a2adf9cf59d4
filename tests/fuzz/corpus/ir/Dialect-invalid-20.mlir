func.func @constant_value_shape() {
  %0 = "tg.constant"() <{value = dense<1.0> : tensor<8xf32>}> : () -> tensor<4xf32>
  return
}
