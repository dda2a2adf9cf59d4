// expected-error @+1 {{tg.symbols is not an array of #tg.symbol}}
func.func @not_symbols() attributes {tg.symbols = [1, 2]} {
  return
}
