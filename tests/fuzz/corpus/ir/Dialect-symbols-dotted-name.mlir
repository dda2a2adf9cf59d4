// A reshape that keeps the element count only at some sizes.
!x = tensor<?x?x17xf32, #tg.sizes<[batch, seq, 16]>>
func.func @reshape_count(%x: !x) attributes {tg.symbols = [#tg.symbol<"batch", 1, 8>, #tg.symbol<"seq", 1, 64>]} {
  // expected-error @+1 {{cannot reshape}}
  %0 = tg.reshape %x : !x to tensor<?x16xf32, #tg.sizes<[batch + stg.reduce_maxeq, 16]>>
  return
}
