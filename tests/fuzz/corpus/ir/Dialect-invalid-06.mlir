func.func @encoded_result(%x: tensor<12xf32>) {
  %0 = tg.reshape %x : tensor<12xf32> to tensor<3x4xf32, "sparse">
  return
}
