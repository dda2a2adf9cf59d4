func.func @encoded_operand(%x: tensor<4xf32, "sparse">) {
  %0 = tg.exp %x : tensor<4xf32, "sparse">
  return
}
