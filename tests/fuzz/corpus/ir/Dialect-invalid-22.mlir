func.func @sqrt_i1(%x: tensor<4xi1>) {
  %0 = tg.sqrt %x : tensor<4xi1>
  return
}
