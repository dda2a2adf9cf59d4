func.func @fold_chain() -> tensor<3xf32> {
  %four = tg.constant dense<4.0> : tensor<3xf32>
  %0 = tg.sqrt %four : tensor<3xf32>
  %1 = tg.neg %0 : tensor<3xf32>
  %2 = tg.relu %1 : tensor<3xf32>
  return %2 : tensor<3xf32>
}
