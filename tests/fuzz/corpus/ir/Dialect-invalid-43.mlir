func.func @broadcast_dtype(%x: tensor<4xf32>) {
  %0 = tg.broadcast %x dims = [1] : tensor<4xf32> to tensor<3x4xf16>
  return
}
