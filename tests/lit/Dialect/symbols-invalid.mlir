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

// -----

// The encoding must agree with the shape: `?` exactly where a size depends on a symbol.
!x = tensor<4x16xf32, #tg.sizes<[batch, 16]>>
func.func @static_extent_of_a_symbolic_size(%x: !x) attributes {tg.symbols = [#tg.symbol<"batch", 1, 8>]} {
  // expected-error @+1 {{dim 0 has the size batch, so its extent is ?}}
  %0 = tg.relu %x : !x
  return
}

// -----

!x = tensor<?x16xf32, #tg.sizes<[batch]>>
func.func @rank(%x: !x) attributes {tg.symbols = [#tg.symbol<"batch", 1, 8>]} {
  // expected-error @+1 {{#tg.sizes gives 1 sizes for 2 dims}}
  %0 = tg.relu %x : !x
  return
}

// -----

!x = tensor<?x16xf32, #tg.sizes<[batch, 16]>>
func.func @no_symbols(%x: !x) {
  // expected-error @+1 {{has types with dynamic dims (#tg.sizes) outside a function with tg.symbols}}
  %0 = tg.relu %x : !x
  return
}

// -----

!x = tensor<?x16xf32, #tg.sizes<[rows, 16]>>
func.func @unknown_symbol(%x: !x) attributes {tg.symbols = [#tg.symbol<"batch", 1, 8>]} {
  // expected-error @+1 {{its size names 'rows', which is not one of the function's tg.symbols}}
  %0 = tg.relu %x : !x
  return
}

// -----

// A reshape that keeps the element count only at some sizes.
!x = tensor<?x?x16xf32, #tg.sizes<[batch, seq, 16]>>
func.func @reshape_count(%x: !x) attributes {tg.symbols = [#tg.symbol<"batch", 1, 8>, #tg.symbol<"seq", 1, 64>]} {
  // expected-error @+1 {{cannot reshape}}
  %0 = tg.reshape %x : !x to tensor<?x16xf32, #tg.sizes<[batch + seq, 16]>>
  return
}

// -----

// The contraction dims differ once seq is not 16.
!x = tensor<?x?xf32, #tg.sizes<[batch, seq]>>
func.func @matmul_k(%x: !x, %w: tensor<16x4xf32>) attributes {tg.symbols = [#tg.symbol<"batch", 1, 8>, #tg.symbol<"seq", 1, 64>]} {
  // expected-error @+1 {{contraction dims differ}}
  %0 = tg.matmul %x, %w : !x, tensor<16x4xf32> -> tensor<?x4xf32, #tg.sizes<[batch, 4]>>
  return
}

// -----

!x = tensor<?x?x16xf32, #tg.sizes<[batch, seq, 16]>>
func.func @reduce_result(%x: !x) attributes {tg.symbols = [#tg.symbol<"batch", 1, 8>, #tg.symbol<"seq", 1, 64>]} {
  // expected-error @+1 {{where the rules give}}
  %0 = tg.reduce_sum %x axes = [1] : !x to tensor<?x16xf32, #tg.sizes<[seq, 16]>>
  return
}

// -----

// Sizes may not go negative anywhere in the range.
!x = tensor<?xf32, #tg.sizes<[n]>>
func.func @negative(%x: !x) attributes {tg.symbols = [#tg.symbol<"n", 1, 8>]} {
  // expected-error @+1 {{its size n - 4 is negative}}
  %0 = tg.reshape %x : !x to tensor<?xf32, #tg.sizes<[n - 4]>>
  return
}

// -----

// expected-error @+1 {{symbol 'n' is listed twice in tg.symbols}}
func.func @listed_twice() attributes {tg.symbols = [#tg.symbol<"n", 1, 8>, #tg.symbol<"n", 1, 8>]} {
  return
}

// -----

// expected-error @+1 {{tg.symbols is not an array of #tg.symbol}}
func.func @not_symbols() attributes {tg.symbols = [1, 2]} {
  return
}

// -----

// A bound that goes past the extent at some size in the range.
!x = tensor<?x8xf32, #tg.sizes<[T, 8]>>
func.func @bound_past_extent(%x: !x) attributes {tg.symbols = [#tg.symbol<"T", 1, 8>]} {
  // expected-error @+1 {{cannot be sliced from 0 to 3 (need 0 <= start <= limit <= 2) (at T = 2)}}
  %0 = tg.slice %x starts = [0, 0] limits = [T + 1, 8] steps = [1, 1] : !x to tensor<?x8xf32, #tg.sizes<[T + 1, 8]>>
  return
}

// -----

// An update offset that depends on a symbol the function does not have.
func.func @unknown_bound(%c: tensor<16x4xf32>, %u: tensor<1x4xf32>, %p: tensor<i32>) attributes {tg.symbols = [#tg.symbol<"T", 1, 8>]} {
  // expected-error @+1 {{a bound names 'S', which is not one of the function's tg.symbols}}
  %0 = tg.dynamic_update_slice %c, %u, %p axis = 1 offsets = [S, 0] check = 1
       : (tensor<16x4xf32>, tensor<1x4xf32>, tensor<i32>) -> tensor<16x4xf32>
  return
}

// -----

func.func @size_of_a_constant() attributes {tg.symbols = [#tg.symbol<"T", 1, 8>]} {
  // expected-error @+1 {{holds the constant 4: use tg.constant}}
  %0 = tg.size #tg.sizes<[4]> as tensor<i32>
  return
}

// -----

func.func @size_not_a_scalar() attributes {tg.symbols = [#tg.symbol<"T", 1, 8>]} {
  // expected-error @+1 {{result must be a 0-d numeric tensor (i32, f32, f16 or bf16), got 'tensor<2xi32>'}}
  %0 = tg.size #tg.sizes<[T]> as tensor<2xi32>
  return
}

// -----

func.func @two_sizes() attributes {tg.symbols = [#tg.symbol<"T", 1, 8>]} {
  // expected-error @+1 {{holds one size, not 2}}
  %0 = tg.size #tg.sizes<[T, T]> as tensor<i32>
  return
}

// -----

func.func @size_without_symbols() {
  // expected-error @+1 {{reads a size outside a function with tg.symbols}}
  %0 = tg.size #tg.sizes<[T]> as tensor<i32>
  return
}

// -----

// MLIR's identifiers may hold '.' or '$'; a symbol's name may not (found by fuzzing: such a
// name was stored and could not be read back).
// expected-error @+1 {{a symbol's name is letters, digits and '_', not 'stg.reduce_maxeq'}}
func.func @dotted_name() attributes {tg.s = #tg.sizes<[batch + stg.reduce_maxeq, 16]>} { return }
