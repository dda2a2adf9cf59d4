func.func @f() -> tensor<1099511627776xf32> {
  %c = tg.constant dense<1.5> : tensor<1099511627776xf32>
  return %c : tensor<1099511627776xf32>
}
