func.func @exp_i32(%x: tensor<4xi32>) {
  %0 = tg.exp %x : tensor<4xi32>
  return
}
