// A function with dynamic dims (issue 18: tg.symbols, #tg.sizes types, as TG_DUMP writes
// NAME.symbolic.mlir) is compiled for its ranges where every kernel can be
// (tgc-symbolic-plan.mlir); this one has an f32 matmul of B [K, N], which cannot yet. `tgc --sizes` compiles it
// at given sizes (the module instantiated there: SymbolicTypes.h's instantiateModule), and
// says what is missing.
// RUN: tgc dump %s --stage=traced --sizes batch=3,seq=5 --arch=sm_90a | FileCheck %s
// RUN: tgc dump %s --stage=plan --sizes seq=2,batch=64 --arch=sm_90a | FileCheck %s --check-prefix=PLAN
// RUN: not tgc dump %s --stage=plan 2>&1 | FileCheck %s --check-prefix=NOSIZES
// RUN: not tgc dump %s --stage=plan --sizes batch=3 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not tgc dump %s --stage=traced --sizes batch=65,seq=5 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not tgc dump %s --stage=traced --sizes batch=3,seq=5,heads=2 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tgc dump %s --sizes batch 2>&1 | FileCheck %s --check-prefix=USAGE

// CHECK: func.func @block(%arg0: tensor<3x5x16xf32>, %arg1: tensor<16x32xf32>) -> (tensor<15x32xf32>, tensor<i32>)
// CHECK: tg.reshape %{{.+}} : tensor<3x5x16xf32> to tensor<15x16xf32>
// CHECK: tg.slice %{{.+}} starts = [14, 0] limits = [15, 32] steps = [1, 1] : tensor<15x32xf32> to tensor<1x32xf32>
// CHECK: tg.constant dense<5> : tensor<i32>
// CHECK-NOT: tg.symbols
// PLAN: plan @block for sm_90a
// NOSIZES: tg-select-matmul: a matmul over dynamic dims that tg does not generate: only the wgmma path is generated over them
// MISSING: error: sizes were given, but not for 'seq': give every symbol a size (tgc --sizes seq=N,...)
// RANGE: error: batch = 65 is outside [1, 64]
// UNKNOWN: error: a size is given for 'heads', which is not one of the function's tg.symbols
// USAGE: tgc: error: --sizes takes NAME=N[,NAME=N...] with N >= 1, got 'batch'
!x = tensor<?x?x16xf32, #tg.sizes<[batch, seq, 16]>>
!r = tensor<?x16xf32, #tg.sizes<[batch*seq, 16]>>
!y = tensor<?x32xf32, #tg.sizes<[batch*seq, 32]>>
func.func @block(%x: !x, %w: tensor<16x32xf32>) -> (!y, tensor<i32>)
    attributes {tg.symbols = [#tg.symbol<"batch", 1, 64>, #tg.symbol<"seq", 1, 512>]} {
  %0 = tg.layer_norm %x epsilon = 1.000000e-05 : !x
  %1 = tg.reshape %0 : !x to !r
  %2 = tg.matmul %1, %w : !r, tensor<16x32xf32> -> !y
  %3 = tg.slice %2 starts = [batch*seq - 1, 0] limits = [batch*seq, 32] steps = [1, 1] : !y to tensor<1x32xf32>
  %4 = tg.size #tg.sizes<[seq]> as tensor<i32>
  return %2, %4 : !y, tensor<i32>
}
