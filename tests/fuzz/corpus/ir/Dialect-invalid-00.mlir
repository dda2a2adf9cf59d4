func.func @dynamic_shape(%x: tensor<?xf32>) {
  %0 = tg.exp %x : tensor<?xf32>
  return
}
