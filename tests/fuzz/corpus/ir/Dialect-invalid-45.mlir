func.func @reshape_dtype(%x: tensor<12xf32>) {
  %0 = tg.reshape %x : tensor<12xf32> to tensor<3x4xi32>
  return
}
