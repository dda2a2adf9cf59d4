// RUN: tg-opt %s -verify-diagnostics --tg-select-matmul
//
// A function with dynamic dims (tg.symbols, #tg.sizes types: issue 18): tg-select-matmul
// refuses a matmul over dynamic dims (the jit compiles such a function per signature instead)
// rather than read a `?` extent as a number, and has nothing to do in a function without one
// (fuse-symbolic.mlir). tg-fuse-attention: fuse-attention-symbolic.mlir.

!x = tensor<?x16xf32, #tg.sizes<[n, 16]>>
!y = tensor<?x8xf32, #tg.sizes<[n, 8]>>
func.func @matmul(%x: !x, %w: tensor<16x8xf32>) -> !y attributes {tg.symbols = [#tg.symbol<"n", 1, 64>]} {
  // expected-error @+1 {{tg-select-matmul: a matmul in a function with dynamic dims (tg.symbols), which tg does not compile yet}}
  %0 = tg.matmul %x, %w : !x, tensor<16x8xf32> -> !y
  return %0 : !y
}
