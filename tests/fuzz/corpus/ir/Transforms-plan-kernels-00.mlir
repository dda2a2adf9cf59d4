func.func @reuse(%x: tensor<1024x2xf32>) -> (tensor<1024xf32>, tensor<32x32xf32>) {
  %t1 = tg.reduce_sum %x axes = [1] : tensor<1024x2xf32> to tensor<1024xf32>
  %t2 = tg.exp %t1 : tensor<1024xf32>
  %t2b = tg.reshape %t2 : tensor<1024xf32> to tensor<1024x1xf32>
  %t3 = tg.reduce_max %t2b axes = [1] : tensor<1024x1xf32> to tensor<1024xf32>
  %t4 = tg.neg %t3 : tensor<1024xf32>
  %r = tg.reshape %t4 : tensor<1024xf32> to tensor<32x32xf32>
  return %t4, %r : tensor<1024xf32>, tensor<32x32xf32>
}
