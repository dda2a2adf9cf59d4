// Sizes may not go negative anywhere in the range.
!x = tensor<?xf32, #tg.sizes<[n]>>
func.func @negative(%x: !x) attributes {tg.symbols = [#tg.symbol<"n", 1, 8>]} {
  // expected-error @+1 {{its size n - 4 is negative}}
  %0 = tg.reshape %x : !x to tensor<?xf32, #tg.sizes<[n - 4]>>
  return
}
