func.func @i64_element(%x: tensor<4xi64>, %y: tensor<4xi64>) {
  %0 = tg.add %x, %y : tensor<4xi64>
  return
}
