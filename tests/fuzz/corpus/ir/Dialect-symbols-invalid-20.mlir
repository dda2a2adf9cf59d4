func.func @two_sizes() attributes {tg.symbols = [#tg.symbol<"T", 1, 8>]} {
  // expected-error @+1 {{holds one size, not 2}}
  %0 = tg.size #tg.sizes<[T, T]> as tensor<i32>
  return
}
