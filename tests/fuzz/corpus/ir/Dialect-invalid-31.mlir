func.func @cmp_mixed_dtypes(%x: tensor<4xf32>, %y: tensor<4xbf16>) {
  %0 = "tg.cmp"(%x, %y) <{predicate = 2 : i64}> : (tensor<4xf32>, tensor<4xbf16>) -> tensor<4xi1>
  return
}
