func.func @fusion_not_isolated(%x: tensor<4xf32>) {
  %0 = tg.fusion elementwise () : () -> tensor<4xf32> {
    %s = tg.add %x, %x : tensor<4xf32>
    tg.yield %s : tensor<4xf32>
  }
  return
}
