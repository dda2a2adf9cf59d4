// expected-error @+1 {{symbol 'b' has the range [5, 4]; it needs 1 <= min <= max <= 2^48}}
func.func @range() attributes {tg.s = #tg.symbol<"b", 5, 4>} { return }
