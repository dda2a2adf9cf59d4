func.func @fold_cmp_nan() -> (tensor<4xi1>, tensor<4xi1>) {
  %nan = tg.constant dense<0x7FC00000> : tensor<4xf32>
  %0 = tg.cmp eq, %nan, %nan : tensor<4xf32>
  %1 = tg.cmp ne, %nan, %nan : tensor<4xf32>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}
