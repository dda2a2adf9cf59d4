func.func @select_same_branches(%c: tensor<4xi1>, %x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = tg.select %c, %x, %x : tensor<4xi1>, tensor<4xi32>
  return %0 : tensor<4xi32>
}
