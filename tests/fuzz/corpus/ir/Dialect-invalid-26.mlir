func.func @add_i1(%x: tensor<4xi1>) {
  %0 = tg.add %x, %x : tensor<4xi1>
  return
}
