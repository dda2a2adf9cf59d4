func.func @fold_cast_to_bf16() -> (tensor<4xbf16>, tensor<4xbf16>) {
  %a = tg.constant dense<1.005859375> : tensor<4xf32>
  %b = tg.constant dense<1.00390625> : tensor<4xf32>
  %0 = tg.cast %a : tensor<4xf32> to tensor<4xbf16>
  %1 = tg.cast %b : tensor<4xf32> to tensor<4xbf16>
  return %0, %1 : tensor<4xbf16>, tensor<4xbf16>
}
