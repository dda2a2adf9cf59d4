func.func @encoded_argument(%x: tensor<4xf32, "sparse">) {
  return
}
