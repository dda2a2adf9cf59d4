func.func @add_negative_zero(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %nz = tg.constant dense<-0.0> : tensor<4xf32>
  %0 = tg.add %x, %nz : tensor<4xf32>
  %1 = tg.add %nz, %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
