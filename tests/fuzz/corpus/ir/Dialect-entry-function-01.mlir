func.func @i64_argument(%x: tensor<4xi64>) -> tensor<4xi64> {
  return %x : tensor<4xi64>
}
