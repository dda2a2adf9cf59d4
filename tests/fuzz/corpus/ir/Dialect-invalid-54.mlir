func.func @reduce_mean_i32(%x: tensor<3x4xi32>) {
  %0 = tg.reduce_mean %x axes = [1] : tensor<3x4xi32> to tensor<3xi32>
  return
}
