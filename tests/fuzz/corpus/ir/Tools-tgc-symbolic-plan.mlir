//
// A function with dynamic dims whose kernels are all elementwise compiles once for its ranges
// (issue 18): one symbolic plan whose buffers, grid and the kernel's element count are
// polynomials of the symbols, evaluated at each call (rt::evaluatePlanSizes). The kernel takes
// the count after its pointers and sizes its index type for the largest one in the ranges.



!x = tensor<?x64xbf16, #tg.sizes<[batch*seq, 64]>>
!f = tensor<?x64xf32, #tg.sizes<[batch*seq, 64]>>
func.func @chain(%x: !x, %y: !x) -> (!x, !f) attributes {tg.symbols = [#tg.symbol<"batch", 1, 64>, #tg.symbol<"seq", 1, 512>]} {
  %c = tg.constant dense<2.0> : tensor<bf16>
  %cb = tg.broadcast %c dims = [] : tensor<bf16> to !x
  %0 = tg.mul %x, %cb : !x
  %1 = tg.add %0, %y : !x
  %2 = tg.relu %1 : !x
  %3 = tg.cast %2 : !x to !f
  %4 = tg.exp %3 : !f
  return %2, %4 : !x, !f
}
