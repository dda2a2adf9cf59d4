// expected-error @+1 {{a coefficient overflows int64}}
func.func @overflow() attributes {tg.s = #tg.sizes<[9223372036854775807 * 2]>} { return }
