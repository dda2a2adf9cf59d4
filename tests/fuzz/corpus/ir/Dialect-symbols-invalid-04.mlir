// expected-error @+1 {{expected an integer or a symbol name in a size}}
func.func @dangling() attributes {tg.s = #tg.sizes<[batch +]>} { return }
