func.func @broadcast_scalar_splat() -> tensor<5x5xi32> {
  %c = tg.constant dense<7> : tensor<i32>
  %0 = tg.broadcast %c dims = [] : tensor<i32> to tensor<5x5xi32>
  return %0 : tensor<5x5xi32>
}
