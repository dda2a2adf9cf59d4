func.func @unranked_argument(%x: tensor<*xf32>) {
  return
}
