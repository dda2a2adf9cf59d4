// MLIR's identifiers may hold '.' or '$'; a symbol's name may not (found by fuzzing: such a
// name was stored and could not be read back).
// expected-error @+1 {{a symbol's name is letters, digits and '_', not 'stg.reduce_maxeq'}}
func.func @dotted_name() attributes {tg.s = #tg.sizes<[batch + stg.reduce_maxeq, 16]>} { return }
