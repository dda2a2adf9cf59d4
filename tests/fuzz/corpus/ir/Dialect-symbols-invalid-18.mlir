func.func @size_of_a_constant() attributes {tg.symbols = [#tg.symbol<"T", 1, 8>]} {
  // expected-error @+1 {{holds the constant 4: use tg.constant}}
  %0 = tg.size #tg.sizes<[4]> as tensor<i32>
  return
}
