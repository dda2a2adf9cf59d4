func.func @add_mixed_dtypes(%x: tensor<4xf32>, %y: tensor<4xf16>) {
  %0 = "tg.add"(%x, %y) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}
