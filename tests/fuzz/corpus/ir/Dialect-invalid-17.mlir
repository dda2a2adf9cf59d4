func.func @constant_value_vector() {
  %0 = "tg.constant"() <{value = dense<1.0> : vector<4xf32>}> : () -> tensor<4xf32>
  return
}
