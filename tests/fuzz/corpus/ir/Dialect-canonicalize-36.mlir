func.func @reshape_round_trip(%x: tensor<12xf32>) -> tensor<12xf32> {
  %0 = tg.reshape %x : tensor<12xf32> to tensor<3x4xf32>
  %1 = tg.reshape %0 : tensor<3x4xf32> to tensor<12xf32>
  return %1 : tensor<12xf32>
}
