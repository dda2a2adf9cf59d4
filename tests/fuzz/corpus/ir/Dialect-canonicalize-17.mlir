func.func @fold_int_splats() -> (tensor<4xi32>, tensor<4xi32>) {
  %max = tg.constant dense<2147483647> : tensor<4xi32>
  %one = tg.constant dense<1> : tensor<4xi32>
  %m7 = tg.constant dense<-7> : tensor<4xi32>
  %two = tg.constant dense<2> : tensor<4xi32>
  %0 = tg.add %max, %one : tensor<4xi32>
  %1 = tg.div %m7, %two : tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}
