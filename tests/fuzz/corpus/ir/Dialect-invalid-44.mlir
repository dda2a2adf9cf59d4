func.func @reshape_element_count(%x: tensor<12xf32>) {
  %0 = tg.reshape %x : tensor<12xf32> to tensor<5x3xf32>
  return
}
