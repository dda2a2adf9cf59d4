func.func @fusion_arg_count(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  %0 = tg.fusion elementwise (%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    tg.yield %a : tensor<4xf32>
  }
  return
}
