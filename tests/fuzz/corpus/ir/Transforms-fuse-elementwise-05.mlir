func.func @layout(%x: tensor<2x6xf32>) -> (tensor<3x4xf32>, tensor<4x3xf32>) {
  %e = tg.exp %x : tensor<2x6xf32>
  %r = tg.reshape %e : tensor<2x6xf32> to tensor<3x4xf32>
  %n = tg.neg %r : tensor<3x4xf32>
  %t = tg.transpose %n perm = [1, 0] : tensor<3x4xf32> to tensor<4x3xf32>
  return %n, %t : tensor<3x4xf32>, tensor<4x3xf32>
}
