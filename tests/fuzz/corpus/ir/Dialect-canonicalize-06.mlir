func.func @sub_negative_zero_kept(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %nz = tg.constant dense<-0.0> : tensor<4xf32>
  %z = tg.constant dense<0.0> : tensor<4xf32>
  %0 = tg.sub %x, %nz : tensor<4xf32>
  %1 = tg.sub %z, %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
