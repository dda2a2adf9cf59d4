func.func @reduce_sum_i1(%x: tensor<3x4xi1>) {
  %0 = tg.reduce_sum %x axes = [1] : tensor<3x4xi1> to tensor<3xi1>
  return
}
