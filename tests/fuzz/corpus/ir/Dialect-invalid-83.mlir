func.func @fusion_yield_types(%x: tensor<4xf32>) {
  %0 = tg.fusion elementwise (%x) : (tensor<4xf32>) -> tensor<4xbf16> {
  ^bb0(%a: tensor<4xf32>):
    tg.yield %a : tensor<4xf32>
  }
  return
}
