// RUN: tg-opt %s -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(func.func(tg-fuse{remarks=false}, tg-select-matmul{arch=sm_90a}))' | FileCheck %s
//
// A function with dynamic dims (tg.symbols, #tg.sizes types: issue 18): a matmul whose rows
// (M) and batch depend on the symbols, with N, K and B static (a layer's weights) and A read
// whole and not transposed, takes the wgmma path with the tile chosen for the largest sizes of
// the ranges, its epilogue fused as over static shapes. Any other matmul over dynamic dims is
// an error that says why (the jit then compiles the function per signature).
// Where the largest sizes take 128 x 256 tiles and the ranges also reach rows that make fewer
// than 100 of them, tg.matmul_small records the 128 x 128 variant for rows up to
// tg.matmul_small_rows (codegen makes both kernels; the runtime picks one at each size).

// Its rows reach few enough for fewer than 100 tiles of 128 x 256 (4 tiles a row of 1024
// columns: up to 24 row blocks, 3,072 rows): a guarded variant with the 128 x 128 tile there.
// CHECK-LABEL: func.func @linear
// CHECK: tg.fusion
// CHECK-SAME: #tg.matmul<path = wgmma, arch = "sm_90a", tile = [128, 256, 64], stages = 4, schedule = cooperative,
// CHECK-SAME: tg.matmul_small = #tg.matmul<path = wgmma, arch = "sm_90a", tile = [128, 128, 64], stages = 6,
// CHECK-SAME: tg.matmul_small_rows = 3072 : i64
// CHECK: tg.matmul
// CHECK: tg.gelu
!x = tensor<?x256xbf16, #tg.sizes<[n, 256]>>
!y = tensor<?x1024xbf16, #tg.sizes<[n, 1024]>>
func.func @linear(%x: !x, %w: tensor<1024x256xbf16>, %b: tensor<1024xbf16>) -> !y attributes {tg.symbols = [#tg.symbol<"n", 1, 8192>]} {
  %0 = tg.matmul %x, %w transpose_b : !x, tensor<1024x256xbf16> -> !y
  %1 = tg.broadcast %b dims = [1] : tensor<1024xbf16> to !y
  %2 = tg.add %0, %1 : !y
  %3 = tg.gelu %2 approximate = tanh : !y
  return %3 : !y
}

// -----

// The same layer over at most 256 rows: 2 x 4 tiles of 128 x 256 are too few for a wave, so
// 128 x 128 (as for a static M of 256), and no variant.
// CHECK-LABEL: func.func @short
// CHECK: #tg.matmul<path = wgmma, arch = "sm_90a", tile = [128, 128, 64], stages = 6, schedule = cooperative,
// CHECK-NOT: tg.matmul_small
!x = tensor<?x256xbf16, #tg.sizes<[n, 256]>>
!y = tensor<?x1024xbf16, #tg.sizes<[n, 1024]>>
func.func @short(%x: !x, %w: tensor<1024x256xbf16>) -> !y attributes {tg.symbols = [#tg.symbol<"n", 1, 256>]} {
  %0 = tg.matmul %x, %w transpose_b : !x, tensor<1024x256xbf16> -> !y
  return %0 : !y
}

// -----

!x = tensor<?x16xf32, #tg.sizes<[n, 16]>>
!y = tensor<?x8xf32, #tg.sizes<[n, 8]>>
func.func @mn_major(%x: !x, %w: tensor<16x8xf32>) -> !y attributes {tg.symbols = [#tg.symbol<"n", 1, 64>]} {
  // expected-error @+1 {{a matmul over dynamic dims that tg does not generate: only the wgmma path is generated over them: wgmma reads f32 (as TF32) only from K-major operands}}
  %0 = tg.matmul %x, %w : !x, tensor<16x8xf32> -> !y
  return %0 : !y
}

// -----

!x = tensor<?x64xbf16, #tg.sizes<[n, 64]>>
!s = tensor<?x?xbf16, #tg.sizes<[n, n]>>
func.func @scores(%x: !x, %y: !x) -> !s attributes {tg.symbols = [#tg.symbol<"n", 1, 64>]} {
  // expected-error @+1 {{a matmul over dynamic dims that tg does not generate: its result's columns (N) depend on the symbols}}
  %0 = tg.matmul %x, %y transpose_b : !x, !x -> !s
  return %0 : !s
}

// -----

!a = tensor<?x4x64xbf16, #tg.sizes<[n, 4, 64]>>
!b = tensor<?x64x8xbf16, #tg.sizes<[n, 64, 8]>>
!c = tensor<?x4x8xbf16, #tg.sizes<[n, 4, 8]>>
func.func @batched(%a: !a, %b: !b) -> !c attributes {tg.symbols = [#tg.symbol<"n", 1, 64>]} {
  // expected-error @+1 {{a matmul over dynamic dims that tg does not generate: B depends on the symbols}}
  %0 = tg.matmul %a, %b : !a, !b -> !c
  return %0 : !c
}

// -----

!p = tensor<64x?xbf16, #tg.sizes<[64, n]>>
!v = tensor<?x64xbf16, #tg.sizes<[n, 64]>>
func.func @values(%p: !p, %v: !v) -> tensor<64x64xbf16> attributes {tg.symbols = [#tg.symbol<"n", 1, 64>]} {
  // expected-error @+1 {{a matmul over dynamic dims that tg does not generate: K depends on the symbols}}
  %0 = tg.matmul %p, %v : !p, !v -> tensor<64x64xbf16>
  return %0 : tensor<64x64xbf16>
}
