func.func @constant_value_encoded() {
  %0 = tg.constant dense<1.0> : tensor<4xf32, "sparse">
  return
}
