func.func @maximum_i1(%x: tensor<4xi1>) {
  %0 = tg.maximum %x, %x : tensor<4xi1>
  return
}
