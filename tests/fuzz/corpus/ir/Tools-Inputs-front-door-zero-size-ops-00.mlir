func.func @f(%x: tensor<3x0xf32>, %a: tensor<2x0xf32>, %b: tensor<0x4xf32>)
    -> (tensor<3x0xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x4xf32>) {
  %e = tg.exp %x : tensor<3x0xf32>
  %s = tg.reduce_sum %x axes = [1] : tensor<3x0xf32> to tensor<3xf32>
  %m = tg.reduce_max %x axes = [1] : tensor<3x0xf32> to tensor<3xf32>
  %n = tg.reduce_mean %x axes = [1] : tensor<3x0xf32> to tensor<3xf32>
  %p = tg.matmul %a, %b : tensor<2x0xf32>, tensor<0x4xf32> -> tensor<2x4xf32>
  %one = tg.constant dense<1.0> : tensor<2x4xf32>
  %q = tg.add %p, %one : tensor<2x4xf32>
  return %e, %s, %m, %n, %q : tensor<3x0xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x4xf32>
}
