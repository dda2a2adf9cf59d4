func.func @neg_neg_neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tg.neg %x : tensor<4xf32>
  %1 = tg.neg %0 : tensor<4xf32>
  %2 = tg.neg %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
