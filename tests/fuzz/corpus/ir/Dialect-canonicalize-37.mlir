func.func @reshape_dense_constant() -> tensor<2x3xi32> {
  %c = tg.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  %0 = tg.reshape %c : tensor<6xi32> to tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}
