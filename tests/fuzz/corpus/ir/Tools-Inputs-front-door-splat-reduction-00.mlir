func.func @f() -> tensor<4xf32> {
  %c = tg.constant dense<0.5> : tensor<4x8xf32>
  %s = tg.reduce_sum %c axes = [1] : tensor<4x8xf32> to tensor<4xf32>
  %t = tg.constant dense<true> : tensor<4xi1>
  tg.check %t id = 1 : tensor<4xi1>
  return %s : tensor<4xf32>
}
