func.func @softmax_axis_negative(%x: tensor<2x8xf32>) {
  %0 = tg.softmax %x axis = -1 : tensor<2x8xf32>
  return
}
