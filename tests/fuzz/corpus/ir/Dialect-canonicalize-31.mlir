func.func @broadcast_dense_kept() -> tensor<3x2xi32> {
  %c = tg.constant dense<[1, 2]> : tensor<2xi32>
  %0 = tg.broadcast %c dims = [1] : tensor<2xi32> to tensor<3x2xi32>
  return %0 : tensor<3x2xi32>
}
