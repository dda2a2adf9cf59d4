func.func @f(%x: tensor<1099511627776xf32>) -> tensor<1099511627776xf32> {
  %y = tg.neg %x : tensor<1099511627776xf32>
  return %y : tensor<1099511627776xf32>
}
