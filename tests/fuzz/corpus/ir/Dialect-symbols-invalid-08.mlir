!x = tensor<?x16xf32, #tg.sizes<[batch, 16]>>
func.func @no_symbols(%x: !x) {
  // expected-error @+1 {{has types with dynamic dims (#tg.sizes) outside a function with tg.symbols}}
  %0 = tg.relu %x : !x
  return
}
