func.func @bad_gelu_approximation(%x: tensor<4xf32>) {
  %0 = tg.gelu %x approximate = sigmoid : tensor<4xf32>
  return
}
