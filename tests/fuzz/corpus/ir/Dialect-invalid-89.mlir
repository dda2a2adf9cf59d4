func.func @check_needs_i1(%x: tensor<4xf32>) {
  tg.check %x id = 1 : tensor<4xf32>
  return
}
