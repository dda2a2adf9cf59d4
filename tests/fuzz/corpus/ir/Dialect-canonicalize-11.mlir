func.func @int_non_identities(%x: tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>) {
  %zero = tg.constant dense<0> : tensor<8xi32>
  %0 = tg.mul %x, %zero : tensor<8xi32>
  %1 = tg.sub %zero, %x : tensor<8xi32>
  return %0, %1 : tensor<8xi32>, tensor<8xi32>
}
