func.func @select_condition_shape(%c: tensor<4xi1>, %x: tensor<8xf32>) {
  %0 = tg.select %c, %x, %x : tensor<4xi1>, tensor<8xf32>
  return
}
