func.func @fusion_body_verified(%x: tensor<4xi32>) {
  %0 = tg.fusion elementwise (%x) : (tensor<4xi32>) -> tensor<4xi32> {
  ^bb0(%a: tensor<4xi32>):
    %e = tg.exp %a : tensor<4xi32>
    tg.yield %e : tensor<4xi32>
  }
  return
}
