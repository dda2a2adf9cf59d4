// `tgc dump` prints every stage without a GPU; --stage picks stages (here with the reduction
// a kernel of its own: --no-fuse-reductions).
// RUN: tgc dump %s --arch=sm_80 --no-fuse-reductions --stage=fuse,remarks,plan,cuda | FileCheck %s
// CHECK: ===== fuse: 3-fuse.mlir =====
// CHECK: tg.fusion elementwise
// CHECK: tg.fusion reduction
// CHECK: ===== remarks: remarks.txt =====
// CHECK: remark: {{.*}}not fused into 'tg.reduce_sum'
// CHECK: ===== plan: plan.txt =====
// CHECK: plan @g for sm_80: 2 kernel(s), 2 launch(es)
// CHECK: ===== cuda: tg_e0_exp_mul.cu =====
// CHECK: struct TgBody
// CHECK: extern "C" __global__ void __launch_bounds__(TG_BLOCK) TG_NAME
// CHECK-NOT: ===== ptx
// --stage=timing: each step's wall time, and nothing else.
// RUN: tgc dump %s --arch=sm_90a --stage=timing | FileCheck %s --check-prefix=TIME
// TIME-NOT: =====
// TIME: ===== timing =====
// TIME-NEXT: verify {{[0-9]+\.[0-9]+}} ms
// TIME-NEXT: canonicalize {{[0-9]+\.[0-9]+}} ms
// TIME-NEXT: decompose {{[0-9]+\.[0-9]+}} ms
// TIME-NEXT: fuse {{[0-9]+\.[0-9]+}} ms
// TIME-NEXT: select-matmul {{[0-9]+\.[0-9]+}} ms
// TIME-NEXT: assign-buffers {{[0-9]+\.[0-9]+}} ms
// TIME-NEXT: codegen {{[0-9]+\.[0-9]+}} ms
// TIME-NEXT: total {{[0-9]+\.[0-9]+}} ms
// TIME-NOT: =====
// RUN: not tgc dump %s --stage=bogus 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: tgc: error: unknown stage 'bogus'
// RUN: not tgc dump %t.nonexistent.mlir 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: tgc: error: cannot read '{{.*}}nonexistent.mlir'

func.func @g(%x: tensor<64x32xf32>) -> tensor<64xf32> {
  %c = tg.constant dense<2.0> : tensor<64x32xf32>
  %e = tg.exp %x : tensor<64x32xf32>
  %m = tg.mul %e, %c : tensor<64x32xf32>
  %s = tg.reduce_sum %m axes = [1] : tensor<64x32xf32> to tensor<64xf32>
  return %s : tensor<64xf32>
}
