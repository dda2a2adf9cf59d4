// expected-error @+1 {{symbol 'n' is listed twice in tg.symbols}}
func.func @listed_twice() attributes {tg.symbols = [#tg.symbol<"n", 1, 8>, #tg.symbol<"n", 1, 8>]} {
  return
}
