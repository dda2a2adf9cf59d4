func.func @f64_element(%x: tensor<4xf64>) {
  %0 = tg.neg %x : tensor<4xf64>
  return
}
