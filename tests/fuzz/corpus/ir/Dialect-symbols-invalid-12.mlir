!x = tensor<?x?x16xf32, #tg.sizes<[batch, seq, 16]>>
func.func @reduce_result(%x: !x) attributes {tg.symbols = [#tg.symbol<"batch", 1, 8>, #tg.symbol<"seq", 1, 64>]} {
  // expected-error @+1 {{where the rules give}}
  %0 = tg.reduce_sum %x axes = [1] : !x to tensor<?x16xf32, #tg.sizes<[seq, 16]>>
  return
}
