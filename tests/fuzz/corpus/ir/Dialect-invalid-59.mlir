func.func @softmax_i32(%x: tensor<2x8xi32>) {
  %0 = tg.softmax %x axis = 1 : tensor<2x8xi32>
  return
}
