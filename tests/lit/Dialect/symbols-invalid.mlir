// RUN: tg-opt %s -split-input-file -verify-diagnostics
//
// Malformed symbols and sizes (#tg.symbol, #tg.sizes; tests/lit/Dialect/symbols.mlir has the
// well-formed ones).

// expected-error @+1 {{a symbol's name is letters, digits and '_', not starting with a digit: '9x'}}
func.func @name() attributes {tg.s = #tg.symbol<"9x", 1, 4>} { return }

// -----

// expected-error @+1 {{symbol 'b' has the range [5, 4]; it needs 1 <= min <= max <= 2^48}}
func.func @range() attributes {tg.s = #tg.symbol<"b", 5, 4>} { return }

// -----

// expected-error @+1 {{symbol 'b' has the range [0, 4]}}
func.func @zero() attributes {tg.s = #tg.symbol<"b", 0, 4>} { return }

// -----

// A division is not a size.
// expected-error @+1 {{expected ']'}}
func.func @division() attributes {tg.s = #tg.sizes<[batch / 2]>} { return }

// -----

// expected-error @+1 {{expected an integer or a symbol name in a size}}
func.func @dangling() attributes {tg.s = #tg.sizes<[batch +]>} { return }

// -----

// expected-error @+1 {{a coefficient overflows int64}}
func.func @overflow() attributes {tg.s = #tg.sizes<[9223372036854775807 * 2]>} { return }
