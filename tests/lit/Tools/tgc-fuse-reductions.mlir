// `tgc --fuse-reductions` (issue 15, in progress): the fuse stage shows one row kernel for a
// softmax; code generation writes it (templates/row.cuh); `tgc run --device cpu` runs it.
// RUN: tgc dump %s --stage=fuse --fuse-reductions | FileCheck %s
// CHECK: ===== fuse: 3-fuse.mlir =====
// CHECK: tg.fusion row
// CHECK-NOT: tg.fusion
// RUN: tgc dump %s --stage=cuda --fuse-reductions | FileCheck %s --check-prefix=CUDA
// CUDA: ===== cuda: tg_w0_{{.*}}.cu =====
// CUDA: row: 2 row(s) of 2 element(s), 1 thread(s) per row, 1 vector(s) of 2 per thread, the row held in registers
// CUDA: tg_row_reduce<float, 0>({{.*}}TgMaxF()
// CUDA: tg_row_reduce<float, 1>({{.*}}TgSumF()
// RUN: python3 %S/Inputs/npy.py write %t.x.npy '<f4' 2x2 0 0 1 1
// RUN: tgc run %s --input %t.x.npy --output %t.y.npy --device cpu --fuse-reductions
// RUN: python3 %S/Inputs/npy.py print %t.y.npy | FileCheck %s --check-prefix=OUT
// OUT: <f4 (2, 2) 0.5 0.5 0.5 0.5

func.func @f(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = tg.softmax %x axis = 1 : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
