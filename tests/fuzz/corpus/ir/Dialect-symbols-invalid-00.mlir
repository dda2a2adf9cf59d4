// RUN: tg-opt %s -split-input-file -verify-diagnostics
//
// Malformed symbols and sizes (#tg.symbol, #tg.sizes; tests/lit/Dialect/symbols.mlir has the
// well-formed ones).

// expected-error @+1 {{a symbol's name is letters, digits and '_', not starting with a digit: '9x'}}
func.func @name() attributes {tg.s = #tg.symbol<"9x", 1, 4>} { return }
