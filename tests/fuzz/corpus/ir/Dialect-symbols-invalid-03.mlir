// A division is not a size.
// expected-error @+1 {{expected ']'}}
func.func @division() attributes {tg.s = #tg.sizes<[batch / 2]>} { return }
