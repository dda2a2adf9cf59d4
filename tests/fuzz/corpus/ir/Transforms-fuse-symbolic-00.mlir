//
// tg-fuse and tg-assign-buffers over dynamic dims (tg.symbols: issue 18). Elementwise chains
// fuse as over static shapes (a splat is one element, broadcast, cloned into the kernel); a
// matmul is a kernel of its own with no epilogue, and a reduction forms no row kernel (not
// generated over dynamic dims yet); values with dynamic dims get 0 bytes and no arena offset
// (the symbolic plan sizes and packs them at each call: tgc-symbolic-plan.mlir).

!x = tensor<?x64xbf16, #tg.sizes<[batch*seq, 64]>>
!f = tensor<?x64xf32, #tg.sizes<[batch*seq, 64]>>
!r = tensor<?x1xf32, #tg.sizes<[batch*seq, 1]>>

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

