func.func @cycle(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tg.exp %x : tensor<4x8xf32>
  %s = tg.reduce_sum %e axes = [1] keep_dims : tensor<4x8xf32> to tensor<4x1xf32>
  %b = tg.broadcast %s dims = [0, 1] : tensor<4x1xf32> to tensor<4x8xf32>
  %d = tg.div %e, %b : tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}
