// RUN: tg-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(tg-fuse))' -verify-diagnostics | FileCheck %s
// RUN: tg-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(tg-fuse{fuse=false remarks=false}))' | FileCheck %s --check-prefix=UNFUSED
//
// The fuser: elementwise ops become tg.fusion kernels; layout chains fold into reads; every
// producer -> consumer edge it refuses gets a remark saying why.

// A chain of elementwise ops is one kernel; splat constants are cloned inside.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.+]]: tensor<16xf32>, %[[Y:.+]]: tensor<16xf32>)
// CHECK: %[[F:.+]] = tg.fusion elementwise(%[[X]], %[[Y]])
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<16xf32>, %[[B:.+]]: tensor<16xf32>):
// CHECK-NEXT: %[[C:.+]] = tg.constant dense<1.500000e+00>
// CHECK-NEXT: %[[M:.+]] = tg.mul %[[A]], %[[C]]
// CHECK-NEXT: %[[S:.+]] = tg.add %[[M]], %[[B]]
// CHECK-NEXT: %[[T:.+]] = tg.tanh %[[S]]
// CHECK-NEXT: tg.yield %[[T]]
// CHECK: return %[[F]]
// CHECK-NOT: tg.fusion
// UNFUSED-LABEL: func.func @chain
// UNFUSED-COUNT-3: tg.fusion elementwise
// UNFUSED-NOT: tg.fusion
func.func @chain(%x: tensor<16xf32>, %y: tensor<16xf32>) -> tensor<16xf32> {
  %c = tg.constant dense<1.5> : tensor<16xf32>
  %0 = tg.mul %x, %c : tensor<16xf32>
  %1 = tg.add %0, %y : tensor<16xf32>
  %2 = tg.tanh %1 : tensor<16xf32>
  return %2 : tensor<16xf32>
}

// -----

// A diamond (a value used twice) with two results is one kernel with two outputs.
// UNFUSED-LABEL: func.func @diamond
// CHECK-LABEL: func.func @diamond
// CHECK: %[[F:.+]]:2 = tg.fusion elementwise(%{{.+}}, %{{.+}}) : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
// CHECK: tg.exp
// CHECK: tg.mul
// CHECK: tg.add
// CHECK: tg.yield
// CHECK: return %[[F]]#0, %[[F]]#1
func.func @diamond(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %a = tg.exp %x : tensor<8xf32>
  %b = tg.mul %a, %a : tensor<8xf32>
  %c = tg.add %a, %y : tensor<8xf32>
  return %b, %c : tensor<8xf32>, tensor<8xf32>
}

// -----

// A broadcast of an input is read inside the kernel: the input is the [4] vector itself.
// CHECK-LABEL: func.func @bias
// CHECK-SAME: (%[[X:.+]]: tensor<3x4xf32>, %[[V:.+]]: tensor<4xf32>)
// CHECK: tg.fusion elementwise(%[[X]], %[[V]])
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<3x4xf32>, %[[B:.+]]: tensor<4xf32>):
// CHECK-NEXT: %[[BB:.+]] = tg.broadcast %[[B]] dims = [1] : tensor<4xf32> to tensor<3x4xf32>
// CHECK-NEXT: tg.add %[[A]], %[[BB]]
// CHECK-NOT: tg.broadcast
func.func @bias(%x: tensor<3x4xf32>, %v: tensor<4xf32>) -> tensor<3x4xf32> {
  %b = tg.broadcast %v dims = [1] : tensor<4xf32> to tensor<3x4xf32>
  %0 = tg.add %x, %b : tensor<3x4xf32>
  %1 = tg.relu %0 : tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}

// -----

// A cheap computed value read through a broadcast is recomputed by its reader rather than
// stored by a kernel of its own (RecomputeThroughLayouts.cpp): exp(broadcast(v)), one kernel.
// CHECK-LABEL: func.func @computed_broadcast
// CHECK: tg.fusion elementwise
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tg.broadcast
// CHECK-NEXT: tg.exp
// CHECK-NEXT: tg.add
// CHECK-NOT: tg.fusion
// UNFUSED-LABEL: func.func @computed_broadcast
// UNFUSED-COUNT-2: tg.fusion elementwise
func.func @computed_broadcast(%x: tensor<3x4xf32>, %v: tensor<4xf32>) -> tensor<3x4xf32> {
  %e = tg.exp %v : tensor<4xf32>
  %b = tg.broadcast %e dims = [1] : tensor<4xf32> to tensor<3x4xf32>
  %0 = tg.add %x, %b : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// A value with another reader stays for it; the broadcast's reader computes its own copy.
// A slice moves up too (computing only the sliced elements): x1 = slice(cast(y)) is
// cast(slice(y)) inside the reader.
// CHECK-LABEL: func.func @recomputed_copies
// CHECK: %[[E:.+]] = tg.fusion elementwise(%arg1)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tg.exp
// CHECK-NEXT: tg.yield
// CHECK: tg.fusion elementwise
// CHECK-NOT: tg.fusion
// CHECK: tg.broadcast
// CHECK-NEXT: tg.exp
// CHECK: tg.slice
// CHECK-NEXT: tg.cast
// CHECK: return %[[E]]
func.func @recomputed_copies(%x: tensor<3x4xf32>, %v: tensor<4xf32>, %y: tensor<3x8xbf16>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  %e = tg.exp %v : tensor<4xf32>
  %b = tg.broadcast %e dims = [1] : tensor<4xf32> to tensor<3x4xf32>
  %0 = tg.add %x, %b : tensor<3x4xf32>
  %c = tg.cast %y : tensor<3x8xbf16> to tensor<3x8xf32>
  %s = tg.slice %c starts = [0, 4] limits = [3, 8] steps = [1, 1] : tensor<3x8xf32> to tensor<3x4xf32>
  %1 = tg.mul %0, %s : tensor<3x4xf32>
  return %e, %1 : tensor<4xf32>, tensor<3x4xf32>
}

// -----

// More than 8 ops above a broadcast are stored once, not recomputed per element read.
// CHECK-LABEL: func.func @long_chain_broadcast
// CHECK-COUNT-2: tg.fusion elementwise
func.func @long_chain_broadcast(%x: tensor<3x4xf32>, %v: tensor<4xf32>) -> tensor<3x4xf32> {
  %0 = tg.exp %v : tensor<4xf32>
  %1 = tg.tanh %0 : tensor<4xf32>
  %2 = tg.exp %1 : tensor<4xf32>
  %3 = tg.tanh %2 : tensor<4xf32>
  %4 = tg.exp %3 : tensor<4xf32>
  %5 = tg.tanh %4 : tensor<4xf32>
  %6 = tg.exp %5 : tensor<4xf32>
  %7 = tg.tanh %6 : tensor<4xf32>
  // expected-remark @+1 {{the value is read through a broadcast/transpose, so it is materialized by its own kernel first}}
  %8 = tg.exp %7 : tensor<4xf32>
  %b = tg.broadcast %8 dims = [1] : tensor<4xf32> to tensor<3x4xf32>
  %r = tg.add %x, %b : tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

// A reduction between two elementwise ops would make a cycle: they stay apart, and the
// reduction gets its own kernel.
// CHECK-LABEL: func.func @cycle
// CHECK: tg.fusion elementwise
// CHECK: tg.fusion reduction
// CHECK: tg.reduce_sum
// CHECK: tg.fusion elementwise
func.func @cycle(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-remark @+2 {{a 'tg.reduce_sum' reads its operands from memory}}
  // expected-remark @+1 {{fusing would create a cycle}}
  %e = tg.exp %x : tensor<4x8xf32>
  // expected-remark @+1 {{not fused into 'tg.div' at}}
  %s = tg.reduce_sum %e axes = [1] keep_dims : tensor<4x8xf32> to tensor<4x1xf32>
  %b = tg.broadcast %s dims = [0, 1] : tensor<4x1xf32> to tensor<4x8xf32>
  %d = tg.div %e, %b : tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

// A reshape is a linear index map: fused through. A transposed result is materialized by a
// copy kernel (the tiled transpose kernel: the values are not recomputed through transposes).
// CHECK-LABEL: func.func @layout
// CHECK: tg.fusion elementwise
// CHECK: tg.exp
// CHECK: tg.reshape
// CHECK: tg.neg
// CHECK: %[[T:.+]] = tg.fusion elementwise
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tg.transpose
// CHECK-NEXT: tg.yield
// CHECK: return %{{.+}}, %[[T]]
func.func @layout(%x: tensor<2x6xf32>) -> (tensor<3x4xf32>, tensor<4x3xf32>) {
  %e = tg.exp %x : tensor<2x6xf32>
  %r = tg.reshape %e : tensor<2x6xf32> to tensor<3x4xf32>
  %n = tg.neg %r : tensor<3x4xf32>
  %t = tg.transpose %n perm = [1, 0] : tensor<3x4xf32> to tensor<4x3xf32>
  return %n, %t : tensor<3x4xf32>, tensor<4x3xf32>
}

// -----

// Reductions and matmuls become single-op kernels of their kind; a broadcast operand of a
// matmul is materialized.
// CHECK-LABEL: func.func @kinds
// CHECK: tg.fusion elementwise
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tg.broadcast
// CHECK: tg.fusion gemm
// CHECK: tg.matmul
// CHECK: tg.fusion reduction
// CHECK: tg.reduce_max
func.func @kinds(%a: tensor<2x3x4xf32>, %w: tensor<4x5xf32>) -> tensor<2x5xf32> {
  %wb = tg.broadcast %w dims = [1, 2] : tensor<4x5xf32> to tensor<2x4x5xf32>
  %m = tg.matmul %a, %wb : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  %r = tg.reduce_max %m axes = [1] : tensor<2x3x5xf32> to tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// -----

// A check is its own small kernel (no results): it reads its condition in place and is never
// removed (it writes the failure flag).
// CHECK-LABEL: func.func @check
// CHECK: %[[OK:.+]] = tg.fusion elementwise
// CHECK: tg.cmp gt
// CHECK: tg.fusion check(%[[OK]]) : (tensor<8xi1>) -> ()
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tg.check
// CHECK: %[[E:.+]] = tg.fusion elementwise
// CHECK: tg.exp
// CHECK: return %[[E]]
func.func @check(%x: tensor<8xf32>) -> tensor<8xf32> {
  %z = tg.constant dense<0.0> : tensor<8xf32>
  // expected-remark @+1 {{not fused into 'tg.check'}}
  %ok = tg.cmp gt, %x, %z : tensor<8xf32>
  tg.check %ok id = 1 : tensor<8xi1>
  %y = tg.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// The elementwise consumers of a matmul form its epilogue: X @ W^T + b |> gelu is one gemm
// kernel (the bias is a broadcast read inside it).
// CHECK-LABEL: func.func @linear_gelu
// CHECK: %[[G:.+]] = tg.fusion gemm(%{{.+}}, %{{.+}}, %{{.+}})
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[MM:.+]] = tg.matmul
// CHECK-NEXT: %[[B:.+]] = tg.broadcast
// CHECK-NEXT: %[[S:.+]] = tg.add %[[MM]], %[[B]]
// CHECK-NEXT: %[[A:.+]] = tg.gelu %[[S]] approximate = tanh
// CHECK-NEXT: tg.yield %[[A]]
// CHECK: return %[[G]]
// CHECK-NOT: tg.fusion
// UNFUSED-LABEL: func.func @linear_gelu
// UNFUSED: tg.fusion gemm
// UNFUSED-COUNT-2: tg.fusion elementwise
func.func @linear_gelu(%x: tensor<64x32xbf16>, %w: tensor<48x32xbf16>, %b: tensor<48xbf16>) -> tensor<64x48xbf16> {
  %0 = tg.matmul %x, %w transpose_b : tensor<64x32xbf16>, tensor<48x32xbf16> -> tensor<64x48xbf16>
  %1 = tg.broadcast %b dims = [1] : tensor<48xbf16> to tensor<64x48xbf16>
  %2 = tg.add %0, %1 : tensor<64x48xbf16>
  %3 = tg.gelu %2 approximate = tanh : tensor<64x48xbf16>
  return %3 : tensor<64x48xbf16>
}

// -----

// The epilogue may also return the matmul's own result; a residual scaled before the matmul
// joins it (it has the matmul's shape). The op computing the matmul's operand stays out (no
// prologue fusion), and a second matmul gets its own kernel.
// CHECK-LABEL: func.func @epilogue_limits
// CHECK: tg.fusion elementwise
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tg.exp
// CHECK: tg.fusion gemm
// CHECK: tg.mul
// CHECK: tg.matmul
// CHECK: tg.add
// CHECK: tg.yield %{{.+}}, %{{.+}} :
// CHECK: tg.fusion gemm
// CHECK: tg.matmul
// CHECK-NEXT: tg.yield
func.func @epilogue_limits(%x: tensor<8x16xf16>, %w: tensor<16x8xf16>, %r: tensor<8x8xf16>) -> (tensor<8x8xf16>, tensor<8x8xf16>, tensor<8x8xf16>) {
  %h = tg.constant dense<0.5> : tensor<8x8xf16>
  // expected-remark @+1 {{a 'tg.matmul' reads its operands from memory}}
  %e = tg.exp %x : tensor<8x16xf16>
  %rs = tg.mul %r, %h : tensor<8x8xf16>
  %0 = tg.matmul %e, %w : tensor<8x16xf16>, tensor<16x8xf16> -> tensor<8x8xf16>
  // expected-remark @+1 {{a 'tg.matmul' reads its operands from memory}}
  %1 = tg.add %0, %rs : tensor<8x8xf16>
  %2 = tg.matmul %1, %1 : tensor<8x8xf16>, tensor<8x8xf16> -> tensor<8x8xf16>
  return %0, %1, %2 : tensor<8x8xf16>, tensor<8x8xf16>, tensor<8x8xf16>
}

// -----

// A value that feeds the matmul cannot also join its epilogue (it would be a prologue).
// CHECK-LABEL: func.func @no_prologue
// CHECK: tg.fusion elementwise
// CHECK: tg.exp
// CHECK: tg.fusion gemm
// CHECK: tg.matmul
// CHECK: tg.add
func.func @no_prologue(%x: tensor<8x8xf16>, %w: tensor<8x8xf16>) -> tensor<8x8xf16> {
  // expected-remark @+2 {{a 'tg.matmul' reads its operands from memory}}
  // expected-remark @+1 {{computes an operand of the matmul}}
  %e = tg.exp %x : tensor<8x8xf16>
  %m = tg.matmul %e, %w : tensor<8x8xf16>, tensor<8x8xf16> -> tensor<8x8xf16>
  %s = tg.add %m, %e : tensor<8x8xf16>
  return %s : tensor<8x8xf16>
}

// -----

// A gather reads the table and the indices from memory (their producers are kernels of their
// own) while its consumers fuse; a dynamic_update_slice is a kernel of its own.
// CHECK-LABEL: func.func @indexed_reads
// CHECK: %[[T:.+]] = tg.fusion elementwise
// CHECK: tg.neg
// CHECK: %[[G:.+]] = tg.fusion elementwise(%[[T]], %{{.+}})
// CHECK: tg.gather
// CHECK-NEXT: tg.exp
// CHECK: %[[U:.+]] = tg.fusion elementwise(%[[G]], %{{.+}}, %{{.+}})
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tg.dynamic_update_slice
// CHECK-NEXT: tg.yield
// CHECK: tg.fusion elementwise(%[[U]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tg.abs
func.func @indexed_reads(%t: tensor<10x4xf32>, %i: tensor<3xi32>, %u: tensor<1x4xf32>, %p: tensor<i32>) -> tensor<3x4xf32> {
  // expected-remark @+1 {{a 'tg.gather' reads its operands from memory at an index it computes, so each operand is materialized by its own kernel first}}
  %0 = tg.neg %t : tensor<10x4xf32>
  %1 = tg.gather %0, %i axis = 0 check = 1 : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  // expected-remark @+1 {{a 'tg.dynamic_update_slice' reads its operands from memory}}
  %2 = tg.exp %1 : tensor<3x4xf32>
  // expected-remark @+1 {{a dynamic_update_slice is a kernel of its own}}
  %3 = tg.dynamic_update_slice %2, %u, %p axis = 0 offsets = [0, 0] check = 2 : (tensor<3x4xf32>, tensor<1x4xf32>, tensor<i32>) -> tensor<3x4xf32>
  %4 = tg.abs %3 : tensor<3x4xf32>
  return %4 : tensor<3x4xf32>
}

// -----

// A rotary embedding's rotate-half, concat(-x2, x1) with x1, x2 the halves of cast(x): each
// concat operand gets a copy of its own cone marked tg.recomputed, which the concat's kernel
// computes in the operand's branch at the operand's index. One kernel, reading x; the
// unmarked cast (read at the kernel's index by the mul) stays a member as before.
// CHECK-LABEL: func.func @rotate_half
// CHECK: tg.fusion elementwise(%arg0, %arg1, %arg2)
// CHECK-DAG: tg.neg {{.+}} {tg.recomputed}
// CHECK-DAG: tg.cast {{.+}} {tg.recomputed}
// CHECK: tg.concat
// CHECK-NOT: tg.fusion
func.func @rotate_half(%x: tensor<4x8xbf16>, %c: tensor<4x8xf32>, %s: tensor<4x8xf32>) -> tensor<4x8xbf16> {
  %xf = tg.cast %x : tensor<4x8xbf16> to tensor<4x8xf32>
  %x1 = tg.slice %xf starts = [0, 0] limits = [4, 4] steps = [1, 1] : tensor<4x8xf32> to tensor<4x4xf32>
  %x2 = tg.slice %xf starts = [0, 4] limits = [4, 8] steps = [1, 1] : tensor<4x8xf32> to tensor<4x4xf32>
  %n = tg.neg %x2 : tensor<4x4xf32>
  %r = tg.concat %n, %x1 axis = 1 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
  %a = tg.mul %xf, %c : tensor<4x8xf32>
  %b = tg.mul %r, %s : tensor<4x8xf32>
  %y = tg.add %a, %b : tensor<4x8xf32>
  %o = tg.cast %y : tensor<4x8xf32> to tensor<4x8xbf16>
  return %o : tensor<4x8xbf16>
}

// -----

// An op reading one value twice (x * x) gets one copy of the layout chain per distinct
// operand, and nothing dead is left behind: one kernel, as for a concat operand x * x.
// CHECK-LABEL: func.func @square_through_broadcast
// CHECK: tg.fusion elementwise
// CHECK-NOT: tg.fusion
func.func @square_through_broadcast(%x: tensor<3x4xf32>, %v: tensor<4xbf16>, %w: tensor<3x4xf32>) -> tensor<3x8xf32> {
  %c = tg.cast %v : tensor<4xbf16> to tensor<4xf32>
  %s = tg.mul %c, %c : tensor<4xf32>
  %b = tg.broadcast %s dims = [1] : tensor<4xf32> to tensor<3x4xf32>
  %0 = tg.add %x, %b : tensor<3x4xf32>
  %q = tg.mul %w, %w : tensor<3x4xf32>
  %r = tg.concat %0, %q axis = 1 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x8xf32>
  return %r : tensor<3x8xf32>
}

// -----

// A concat operand that reads one producer directly and through another op, exp(c) + c: the
// original cone is erased once, each op of it once (erasing c after exp(c) and then reaching
// c again was a use after free under ASan). One kernel, and no dead cast left behind.
// CHECK-LABEL: func.func @concat_operand_reads_its_producer_twice
// CHECK: tg.fusion elementwise
// CHECK-NOT: tg.fusion
// CHECK: return
func.func @concat_operand_reads_its_producer_twice(%x: tensor<3x4xbf16>, %w: tensor<3x4xf32>) -> tensor<3x8xf32> {
  %c = tg.cast %x : tensor<3x4xbf16> to tensor<3x4xf32>
  %e = tg.exp %c : tensor<3x4xf32>
  %s = tg.add %e, %c : tensor<3x4xf32>
  %r = tg.concat %s, %w axis = 1 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x8xf32>
  return %r : tensor<3x8xf32>
}

// -----

// Iotas read through layouts are iotas of the reader's shape: positions + pos broadcast over
// the rotary angles, an arange broadcast over the rows and one whose counted dim has extent
// 1 (zeros): one kernel, no iota stored; a transposed iota counts along the dim its axis
// moved to. An iota reshaped across its counted dim (split) stays its own kernel.
// CHECK-LABEL: func.func @iotas_through_layouts
// CHECK: tg.fusion elementwise
// CHECK-DAG: tg.iota axis = 0 : tensor<4x64xf32>
// CHECK-DAG: tg.iota axis = 1 : tensor<4x64xf32>
// CHECK-DAG: tg.constant dense<0.000000e+00> : tensor<4x64xf32>
// CHECK: tg.yield
// CHECK: tg.fusion elementwise
// CHECK-NEXT: tg.iota axis = 0 : tensor<64x4xf32>
// CHECK-NEXT: tg.cos
// CHECK-NOT: tg.fusion
// CHECK: return
func.func @iotas_through_layouts(%pos: tensor<f32>) -> (tensor<4x64xf32>, tensor<64x4xf32>) {
  %rows = tg.iota axis = 0 : tensor<4xf32>
  %pb = tg.broadcast %pos dims = [] : tensor<f32> to tensor<4xf32>
  %p = tg.add %rows, %pb : tensor<4xf32>
  %pr = tg.reshape %p : tensor<4xf32> to tensor<4x1xf32>
  %pp = tg.broadcast %pr dims = [0, 1] : tensor<4x1xf32> to tensor<4x64xf32>
  %cols = tg.iota axis = 0 : tensor<64xf32>
  %cb = tg.broadcast %cols dims = [1] : tensor<64xf32> to tensor<4x64xf32>
  %one = tg.iota axis = 0 : tensor<1x64xf32>
  %ob = tg.broadcast %one dims = [0, 1] : tensor<1x64xf32> to tensor<4x64xf32>
  %a = tg.mul %pp, %cb : tensor<4x64xf32>
  %b = tg.add %a, %ob : tensor<4x64xf32>
  %t = tg.iota axis = 1 : tensor<4x64xf32>
  %tt = tg.transpose %t perm = [1, 0] : tensor<4x64xf32> to tensor<64x4xf32>
  %c = tg.cos %tt : tensor<64x4xf32>
  return %b, %c : tensor<4x64xf32>, tensor<64x4xf32>
}

// -----

// CHECK-LABEL: func.func @iota_split_by_a_reshape
// CHECK: tg.fusion elementwise
// CHECK: tg.iota axis = 0 : tensor<8xf32>
// CHECK: tg.fusion elementwise
func.func @iota_split_by_a_reshape() -> tensor<2x4x3xf32> {
  // expected-remark @+1 {{not fused into 'tg.exp'}}
  %i = tg.iota axis = 0 : tensor<8xf32>
  %r = tg.reshape %i : tensor<8xf32> to tensor<2x4xf32>
  %b = tg.broadcast %r dims = [0, 1] : tensor<2x4xf32> to tensor<2x4x3xf32>
  %e = tg.exp %b : tensor<2x4x3xf32>
  return %e : tensor<2x4x3xf32>
}
