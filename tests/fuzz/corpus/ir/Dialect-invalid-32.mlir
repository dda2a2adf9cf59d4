func.func @cmp_result_not_i1(%x: tensor<4xf32>) {
  %0 = "tg.cmp"(%x, %x) <{predicate = 0 : i64}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}
