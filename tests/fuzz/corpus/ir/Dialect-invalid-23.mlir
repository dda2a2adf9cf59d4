func.func @gelu_i32(%x: tensor<4xi32>) {
  %0 = tg.gelu %x approximate = erf : tensor<4xi32>
  return
}
