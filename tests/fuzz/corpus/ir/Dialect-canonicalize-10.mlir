func.func @int_identities(%x: tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>) {
  %zero = tg.constant dense<0> : tensor<8xi32>
  %one = tg.constant dense<1> : tensor<8xi32>
  %0 = tg.add %x, %zero : tensor<8xi32>
  %1 = tg.add %zero, %x : tensor<8xi32>
  %2 = tg.sub %x, %zero : tensor<8xi32>
  %3 = tg.mul %x, %one : tensor<8xi32>
  %4 = tg.mul %one, %x : tensor<8xi32>
  %5 = tg.div %x, %one : tensor<8xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>
}
