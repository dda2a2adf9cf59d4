// The contraction dims differ once seq is not 16.
!x = tensor<?x?xf32, #tg.sizes<[batch, seq]>>
func.func @matmul_k(%x: !x, %w: tensor<16x4xf32>) attributes {tg.symbols = [#tg.symbol<"batch", 1, 8>, #tg.symbol<"seq", 1, 64>]} {
  // expected-error @+1 {{contraction dims differ}}
  %0 = tg.matmul %x, %w : !x, tensor<16x4xf32> -> tensor<?x4xf32, #tg.sizes<[batch, 4]>>
  return
}
