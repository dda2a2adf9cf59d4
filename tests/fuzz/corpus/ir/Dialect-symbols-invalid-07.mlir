!x = tensor<?x16xf32, #tg.sizes<[batch]>>
func.func @rank(%x: !x) attributes {tg.symbols = [#tg.symbol<"batch", 1, 8>]} {
  // expected-error @+1 {{#tg.sizes gives 1 sizes for 2 dims}}
  %0 = tg.relu %x : !x
  return
}
