func.func @neg_neg(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = tg.neg %x : tensor<4xf32>
  %1 = tg.neg %0 : tensor<4xf32>
  %2 = tg.neg %i : tensor<4xi32>
  %3 = tg.neg %2 : tensor<4xi32>
  return %1, %3 : tensor<4xf32>, tensor<4xi32>
}
