// `tgc run` on .npy files (CPU reference; the GPU path is exercised by scripts/gpu-run.sh).
// RUN: python3 %S/Inputs/npy.py write %t.x.npy '<f4' 2x3 1 2 3 4 5 6
// RUN: python3 %S/Inputs/npy.py write %t.b.npy '<f4' 3 10 20 30
// RUN: tgc run %s --input %t.x.npy --input %t.b.npy --output %t.y.npy --output %t.m.npy --device cpu
// RUN: python3 %S/Inputs/npy.py print %t.y.npy | FileCheck %s --check-prefix=SUM
// RUN: python3 %S/Inputs/npy.py print %t.m.npy | FileCheck %s --check-prefix=MAX
// SUM: <f4 (2, 3) 11 22 33 14 25 36
// MAX: <f4 (2,) 33 36
//
// Bad inputs get one clear error each:
// RUN: not tgc run %s --input %t.x.npy --output %t.y.npy --output %t.m.npy --device cpu 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: tgc: error: @f takes 2 input(s), got 1 --input file(s)
// RUN: python3 %S/Inputs/npy.py write %t.i.npy '<i4' 3 1 2 3
// RUN: not tgc run %s --input %t.x.npy --input %t.i.npy --output %t.y.npy --output %t.m.npy --device cpu 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: tgc: error: input 1 ({{.*}}.i.npy) must be f32[3], got i32[3]
// RUN: not tgc run %s --input %t.x.npy --input %t.missing.npy --output %t.y.npy --output %t.m.npy --device cpu 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: tgc: error: {{.*}}missing.npy
// RUN: not tgc run %s --input %t.x.npy --input %t.b.npy --output %t.y.npy --device cpu 2>&1 | FileCheck %s --check-prefix=OUTS
// OUTS: tgc: error: @f returns 2 result(s), got 1 --output file(s)
// RUN: not tgc run %s --input %t.x.npy --input %t.b.npy --output %t.y.npy --output %t.m.npy --device tpu 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: tgc: error: --device must be cpu or cuda, got 'tpu'
// RUN: not tgc run %s --input %t.x.npy --input %t.b.npy --output %t.y.npy --output %t.m.npy --device cpu --bench=5 2>&1 | FileCheck %s --check-prefix=BENCHCPU
// BENCHCPU: --bench times the kernels on the GPU; it needs --device cuda
// RUN: not tgc run %s --input %t.x.npy --input %t.b.npy --output %t.y.npy --output %t.m.npy --bench=0 2>&1 | FileCheck %s --check-prefix=BENCH0
// BENCH0: --bench takes a count from 1 to 100000

func.func @f(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>) {
  %bb = tg.broadcast %b dims = [1] : tensor<3xf32> to tensor<2x3xf32>
  %y = tg.add %x, %bb : tensor<2x3xf32>
  %m = tg.reduce_max %y axes = [1] : tensor<2x3xf32> to tensor<2xf32>
  return %y, %m : tensor<2x3xf32>, tensor<2xf32>
}
