func.func @constant_sparse() {
  %0 = tg.constant sparse<[[0]], [1.0]> : tensor<4xf32>
  return
}
