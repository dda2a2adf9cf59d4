!x = tensor<?x16xf32, #tg.sizes<[rows, 16]>>
func.func @unknown_symbol(%x: !x) attributes {tg.symbols = [#tg.symbol<"batch", 1, 8>]} {
  // expected-error @+1 {{its size names 'rows', which is not one of the function's tg.symbols}}
  %0 = tg.relu %x : !x
  return
}
