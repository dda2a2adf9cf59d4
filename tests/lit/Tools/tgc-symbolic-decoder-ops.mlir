// RUN: tgc dump %s --stage=cuda --arch=sm_90a | FileCheck %s
// RUN: tgc dump %s --stage=plan --arch=sm_90a | FileCheck %s --check-prefix=PLAN
//
// The decoder's prefill ops over a dynamic prompt length T (issue 18): an embedding gather of
// T tokens, an in-place update of T keys of a donated cache at a device position, the last
// row x[T - 1] (a slice whose start is a size argument), and pos + T (a size used as a
// number). Each is one kernel over T with its sizes as arguments. (The GPU test
// GpuDynamicDims.ADecoderPrefillIsRightAtEveryPromptLength checks the values.)

// The gather: element i of [T, 64] reads row tokens[i / 64] of the table (checked, clamped).
// CHECK-LABEL: elementwise: 1 op(s), 2 input(s), 1 output(s), 64*T elements
// CHECK: long long numel_;
// CHECK: int j{{[0-9]+}} = in1[(i / 64u)];
// CHECK: if (j{{[0-9]+}} < 0 || (long long)j{{[0-9]+}} > (long long)(99)) {
// CHECK: = tg_from_bf16(in0[q{{[0-9]+}} * 64u + (i % 64u)]);
// The update in place: 2 x T x 64 elements written at the checked start, which lies in
// [0, 32 - T]: element j of the update at [j / 64 / T, (j / 64) % T + start, j % 64].
// CHECK-LABEL: dynamic_update_slice in place: 128*T of 4096 element(s) written
// CHECK: long long numel_;
// CHECK-NEXT: long long z0_;
// CHECK: (long long)s > (long long)(32 - z0_)
// CHECK: out0[tg_udiv((j / 64u), (unsigned)z0_) * 2048u + (tg_umod((j / 64u), (unsigned)z0_) + start) * 64u + (j % 64u)] = in1[j];
// The last row: a copy from row T - 1.
// CHECK-LABEL: elementwise: 0 op(s), 1 input(s), 1 output(s), 64 elements
// CHECK: in0[1u * (unsigned)z1_ * 64u + i]
// pos + T: T a size argument.
// CHECK-LABEL: elementwise: 2 op(s), 1 input(s), 1 output(s), 1 elements
// CHECK: = (int)(z{{[0-9]+}}_);

// PLAN: symbols: T in [1, 32]
// PLAN-DAG: sizes [64*T, T]
// PLAN-DAG: grid from sizes (ceil((128*T) / 256) <= 1056) sizes [128*T, T]  dynamic_update_slice in place
// PLAN-DAG: sizes [64, T, T - 1]
// PLAN-DAG: sizes [1, T]
!t = tensor<?xi32, #tg.sizes<[T]>>
!x = tensor<?x64xbf16, #tg.sizes<[T, 64]>>
!u = tensor<2x?x64xbf16, #tg.sizes<[2, T, 64]>>
func.func @prefill_ops(%tokens: !t, %table: tensor<100x64xbf16>, %cache: tensor<2x32x64xbf16> {tg.donated}, %k: !u, %pos: tensor<i32>)
    -> (!x, tensor<2x32x64xbf16>, tensor<1x64xbf16>, tensor<i32>) attributes {tg.symbols = [#tg.symbol<"T", 1, 32>]} {
  %0 = tg.gather %table, %tokens axis = 0 check = 1 : (tensor<100x64xbf16>, !t) -> !x
  %1 = tg.dynamic_update_slice %cache, %k, %pos axis = 1 offsets = [0, 0, 0] check = 2 : (tensor<2x32x64xbf16>, !u, tensor<i32>) -> tensor<2x32x64xbf16>
  %2 = tg.slice %0 starts = [T - 1, 0] limits = [T, 64] steps = [1, 1] : !x to tensor<1x64xbf16>
  %3 = tg.size #tg.sizes<[T]> as tensor<i32>
  %4 = tg.add %pos, %3 : tensor<i32>
  return %0, %1, %2, %4 : !x, tensor<2x32x64xbf16>, tensor<1x64xbf16>, tensor<i32>
}
