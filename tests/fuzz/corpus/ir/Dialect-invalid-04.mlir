func.func @signed_i32(%x: tensor<4xsi32>) {
  %0 = tg.abs %x : tensor<4xsi32>
  return
}
