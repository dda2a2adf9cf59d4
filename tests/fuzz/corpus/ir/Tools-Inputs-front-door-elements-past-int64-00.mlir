func.func @f() -> tensor<4294967296x4294967296xf32> {
  %c = tg.constant dense<1.5> : tensor<4294967296x4294967296xf32>
  %y = tg.exp %c : tensor<4294967296x4294967296xf32>
  return %y : tensor<4294967296x4294967296xf32>
}
