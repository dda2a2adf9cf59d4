func.func @reduce_max_i1(%x: tensor<3x4xi1>) {
  %0 = tg.reduce_max %x axes = [0] : tensor<3x4xi1> to tensor<4xi1>
  return
}
