func.func @fusion_no_yield(%x: tensor<4xf32>) {
  %0 = tg.fusion elementwise (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %s = tg.add %a, %a : tensor<4xf32>
  }
  return
}
