func.func @f(%x: tensor<*xf32>) {
  return
}
