func.func @fusion_yield_count(%x: tensor<4xf32>) {
  %0:2 = tg.fusion reduction (%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    tg.yield %a : tensor<4xf32>
  }
  return
}
