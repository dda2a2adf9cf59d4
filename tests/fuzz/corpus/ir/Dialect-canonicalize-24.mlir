func.func @no_fold_non_splat() -> tensor<2xf32> {
  %a = tg.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %0 = tg.sqrt %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
