func.func @diamond(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %a = tg.exp %x : tensor<8xf32>
  %b = tg.mul %a, %a : tensor<8xf32>
  %c = tg.add %a, %y : tensor<8xf32>
  return %b, %c : tensor<8xf32>, tensor<8xf32>
}
