func.func @fold_add_splats() -> tensor<2x3xf32> {
  %a = tg.constant dense<1.25> : tensor<2x3xf32>
  %b = tg.constant dense<2.25> : tensor<2x3xf32>
  %0 = tg.add %a, %b : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
