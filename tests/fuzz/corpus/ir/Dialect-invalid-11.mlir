func.func @elements_past_int64() {
  %c = tg.constant dense<1.5> : tensor<4294967296x4294967296xf32>
  return
}
