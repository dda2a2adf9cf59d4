func.func @select_condition_not_i1(%c: tensor<4xf32>, %x: tensor<4xf32>) {
  %0 = tg.select %c, %x, %x : tensor<4xf32>, tensor<4xf32>
  return
}
