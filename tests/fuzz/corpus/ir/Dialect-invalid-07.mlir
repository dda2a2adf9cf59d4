func.func @f64_constant() {
  %0 = tg.constant dense<1.0> : tensor<4xf64>
  return
}
