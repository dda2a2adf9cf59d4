func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> attributes {a = array<index: 1>} {
  return %x : tensor<4xf32>
}
