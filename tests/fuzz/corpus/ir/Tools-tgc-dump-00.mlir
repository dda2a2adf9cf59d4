func.func @g(%x: tensor<64x32xf32>) -> tensor<64xf32> {
  %c = tg.constant dense<2.0> : tensor<64x32xf32>
  %e = tg.exp %x : tensor<64x32xf32>
  %m = tg.mul %e, %c : tensor<64x32xf32>
  %s = tg.reduce_sum %m axes = [1] : tensor<64x32xf32> to tensor<64xf32>
  return %s : tensor<64xf32>
}
