func.func @fold_cast_to_int() -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi1>, tensor<4xf32>) {
  %a = tg.constant dense<-2.75> : tensor<4xf32>
  %big = tg.constant dense<1.0e+10> : tensor<4xf32>
  %half = tg.constant dense<0.5> : tensor<4xf32>
  %m1 = tg.constant dense<-1> : tensor<4xi32>
  %0 = tg.cast %a : tensor<4xf32> to tensor<4xi32>
  %1 = tg.cast %big : tensor<4xf32> to tensor<4xi32>
  %2 = tg.cast %half : tensor<4xf32> to tensor<4xi1>
  %3 = tg.cast %m1 : tensor<4xi32> to tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<4xi1>, tensor<4xf32>
}
