func.func @softmax_axis_out_of_range(%x: tensor<2x8xf32>) {
  %0 = tg.softmax %x axis = 2 : tensor<2x8xf32>
  return
}
