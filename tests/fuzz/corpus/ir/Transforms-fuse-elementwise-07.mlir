func.func @check(%x: tensor<8xf32>) -> tensor<8xf32> {
  %z = tg.constant dense<0.0> : tensor<8xf32>
  %ok = tg.cmp gt, %x, %z : tensor<8xf32>
  tg.check %ok id = 1 : tensor<8xi1>
  %y = tg.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
