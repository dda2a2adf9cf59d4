// The front door of `tgc dump` / `tgc run` (issue 13, item 7): each input under
// Inputs/front-door crashed tgc (SIGSEGV, SIGFPE, an uncaught bad_alloc) or gave a wrong plan
// with exit status 0. Each must end in a diagnostic and exit status 1 (`not` fails on a crash).
// RUN: not tgc dump %S/Inputs/front-door/declaration.mlir 2>&1 | FileCheck %s --check-prefix=DECL
// DECL: tgc: error: '{{.*}}declaration.mlir' is not a valid tg function:
// DECL: error: 'func.func' op is a declaration: tg compiles functions with a body
// RUN: not tgc dump %S/Inputs/front-door/unranked-argument.mlir 2>&1 | FileCheck %s --check-prefix=UNRANKED
// UNRANKED: error: 'func.func' op argument 0 is not a tg tensor: tensor<*xf32> is not a ranked tensor
// RUN: not tgc dump %S/Inputs/front-door/i64-argument.mlir 2>&1 | FileCheck %s --check-prefix=I64
// I64: error: 'func.func' op argument 0 is not a tg tensor: tensor<4xi64> does not have a tg element type
// RUN: not tgc dump %S/Inputs/front-door/two-functions.mlir 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: error: 'builtin.module' op holds more than one func.func (@f and @g): tg compiles one function at a time
// RUN: not tgc dump %S/Inputs/front-door/elements-past-int64.mlir 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: elements-past-int64.mlir:2: error: 'tg.constant' op result #0 must be statically shaped tensor (no encoding, at most 2^48 bytes)
// RUN: not tgc run %S/Inputs/front-door/elements-past-int64.mlir --output %t.huge.npy --device cpu 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not tgc dump %S/Inputs/front-door/array-of-index.mlir 2>&1 | FileCheck %s --check-prefix=INDEX
// INDEX: array-of-index.mlir:1: error: a dense array of `index` elements (`array<index: ...>`) is refused before parsing: it crashes MLIR 22's parser
//
// Zero-size tensors work end to end: kernels over no elements get no launch (their emitters
// divided by the zero extent), reductions over an empty axis and a matmul with K = 0 still
// compute their non-empty results (K = 0 takes the simt path).
// RUN: tgc dump %S/Inputs/front-door/zero-broadcast.mlir --stage=plan | FileCheck %s --check-prefix=ZERO
// RUN: tgc dump %S/Inputs/front-door/zero-transpose.mlir --stage=plan | FileCheck %s --check-prefix=ZERO
// ZERO: plan @f for sm_90a: 0 kernel(s), 0 launch(es), arena 0 bytes
// ZERO: buffer 1: output 0, 0 bytes
// RUN: tgc dump %S/Inputs/front-door/zero-size-ops.mlir --stage=plan,ptx | FileCheck %s --check-prefix=ZOPS
// ZOPS: plan @f for sm_90a: 4 kernel(s), 4 launch(es)
// ZOPS-NOT: launch tg_e0_exp
// ZOPS: launch tg_r1_reduce_sum {{.*}} reduce_sum of 0 elements into each of 3 output(s)
// ZOPS: launch tg_g4_matmul_add {{.*}} gemm (simt, tile 32x32x16): 1 x [2 x 0] @ [0 x 4]
// ZOPS: ===== ptx: tg_r1_reduce_sum.ptx
// ZOPS: ===== ptx: tg_g4_matmul_add.ptx
// RUN: python3 %S/Inputs/npy.py write %t.x.npy '<f4' 3x0
// RUN: python3 %S/Inputs/npy.py write %t.a.npy '<f4' 2x0
// RUN: python3 %S/Inputs/npy.py write %t.b.npy '<f4' 0x4
// RUN: tgc run %S/Inputs/front-door/zero-size-ops.mlir --input %t.x.npy --input %t.a.npy --input %t.b.npy --output %t.o0.npy --output %t.o1.npy --output %t.o2.npy --output %t.o3.npy --output %t.o4.npy --device cpu
// RUN: python3 %S/Inputs/npy.py print %t.o0.npy | FileCheck %s --check-prefix=Z0
// RUN: python3 %S/Inputs/npy.py print %t.o1.npy | FileCheck %s --check-prefix=Z1
// RUN: python3 %S/Inputs/npy.py print %t.o2.npy | FileCheck %s --check-prefix=Z2
// RUN: python3 %S/Inputs/npy.py print %t.o3.npy | FileCheck %s --check-prefix=Z3
// RUN: python3 %S/Inputs/npy.py print %t.o4.npy | FileCheck %s --check-prefix=Z4
// Z0: <f4 (3, 0) {{$}}
// Z1: <f4 (3,) 0 0 0
// Z2: <f4 (3,) -inf -inf -inf
// Z3: <f4 (3,) nan nan nan
// Z4: <f4 (2, 4) 1 1 1 1 1 1 1 1
//
// Splat constants stay splats: a 2^40-element splat result is a fill kernel, not a 4 TiB
// host buffer (it was an uncaught bad_alloc; 2^28 elements took 3 s and 2.1 GB).
// RUN: tgc dump %S/Inputs/front-door/splat-2e40.mlir --stage=plan | FileCheck %s --check-prefix=SPLAT
// SPLAT: plan @f for sm_90a: 1 kernel(s), 1 launch(es)
// SPLAT-NOT: constant
// SPLAT: buffer 0: output 0, 4398046511104 bytes  (tg.fusion tg_e0_fill)
// SPLAT: launch tg_e0_fill
// A matmul with a splat operand: the operand comes from a fill kernel ("matmul operands must
// be contiguous inputs" before); the CPU result is the reference.
// RUN: tgc dump %S/Inputs/front-door/matmul-splat-operand.mlir --stage=plan,ptx | FileCheck %s --check-prefix=MMSPLAT
// MMSPLAT: launch tg_e0_fill {{.*}} 0 input(s), 1 output(s), 4096 elements
// MMSPLAT: launch tg_g1_matmul {{.*}} buffers [0, 1, 2]
// MMSPLAT: ===== ptx: tg_g1_matmul.ptx
// RUN: tgc dump %S/Inputs/front-door/splat-reduction.mlir --stage=plan,ptx | FileCheck %s --check-prefix=SPLATRED
// SPLATRED: launch tg_r0_reduce_sum {{.*}} buffers [0]
// SPLATRED: launch tg_c1_check {{.*}} buffers [1]
// SPLATRED: ===== ptx: tg_r0_reduce_sum.ptx
// SPLATRED: ===== ptx: tg_c1_check.ptx
// RUN: tgc run %S/Inputs/front-door/splat-reduction.mlir --output %t.s.npy --device cpu
// RUN: python3 %S/Inputs/npy.py print %t.s.npy | FileCheck %s --check-prefix=SPLATSUM
// SPLATSUM: <f4 (4,) 4 4 4 4
//
// A .npy header read through a pipe cannot make tgc allocate what it announces (2^40
// elements: an uncaught bad_alloc before); the data is read as it arrives.
// RUN: python3 %S/Inputs/npy.py write %t.lying.npy '<f4' 1099511627776
// RUN: cat %t.lying.npy | not tgc run %S/Inputs/front-door/pipe-input.mlir --input /dev/stdin --output %t.p.npy --device cpu 2>&1 | FileCheck %s --check-prefix=PIPE
// PIPE: tgc: error: /dev/stdin: truncated data: shape [1099511627776] of f32 needs 4398046511104 data bytes but only 0 follow the header
