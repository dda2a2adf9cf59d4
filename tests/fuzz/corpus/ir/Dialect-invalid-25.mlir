func.func @neg_i1(%x: tensor<4xi1>) {
  %0 = tg.neg %x : tensor<4xi1>
  return
}
