// expected-error @+1 {{symbol 'b' has the range [0, 4]}}
func.func @zero() attributes {tg.s = #tg.symbol<"b", 0, 4>} { return }
