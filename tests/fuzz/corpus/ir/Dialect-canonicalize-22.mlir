func.func @fold_cmp_splats() -> (tensor<2x2xi1>, tensor<2x2xi1>, tensor<2x2xi1>) {
  %a = tg.constant dense<1.0> : tensor<2x2xf32>
  %b = tg.constant dense<2.0> : tensor<2x2xf32>
  %0 = tg.cmp lt, %a, %b : tensor<2x2xf32>
  %1 = tg.cmp ge, %a, %b : tensor<2x2xf32>
  %2 = tg.cmp ne, %a, %b : tensor<2x2xf32>
  return %0, %1, %2 : tensor<2x2xi1>, tensor<2x2xi1>, tensor<2x2xi1>
}
