func.func @constant_value_f64() {
  %0 = "tg.constant"() <{value = dense<1.0> : tensor<4xf64>}> : () -> tensor<4xf32>
  return
}
