func.func @pow_i32(%x: tensor<4xi32>) {
  %0 = tg.pow %x, %x : tensor<4xi32>
  return
}
