// The encoding must agree with the shape: `?` exactly where a size depends on a symbol.
!x = tensor<4x16xf32, #tg.sizes<[batch, 16]>>
func.func @static_extent_of_a_symbolic_size(%x: !x) attributes {tg.symbols = [#tg.symbol<"batch", 1, 8>]} {
  // expected-error @+1 {{dim 0 has the size batch, so its extent is ?}}
  %0 = tg.relu %x : !x
  return
}
