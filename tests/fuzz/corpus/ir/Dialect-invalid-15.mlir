func.func @broadcast_past_limit(%x: tensor<1xf32>) {
  %0 = tg.broadcast %x dims = [1] : tensor<1xf32> to tensor<4294967296x4294967296xf32>
  return
}
