func.func @at_the_limit(%x: tensor<70368744177664xf32>) -> tensor<70368744177664xf32> {
  %0 = tg.neg %x : tensor<70368744177664xf32>
  return %0 : tensor<70368744177664xf32>
}
