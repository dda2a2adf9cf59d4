func.func @bad_predicate(%x: tensor<4xf32>) {
  %0 = tg.cmp foo, %x, %x : tensor<4xf32>
  return
}
