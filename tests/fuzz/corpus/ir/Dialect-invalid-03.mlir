func.func @unranked(%x: tensor<*xf32>) {
  %0 = "tg.reshape"(%x) : (tensor<*xf32>) -> tensor<4xf32>
  return
}
