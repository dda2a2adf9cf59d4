// RUN: tgc dump %s --stage=cuda --arch=sm_90a | FileCheck %s
//
// Reads through broadcasts in an elementwise kernel over [batch, seq, 24] (issue 18): a value
// of one per row [batch, seq, 1] is read at i / 24 (the two dynamic dims linearize as one), a
// bias [24] at i % 24; the element count is a size argument. (The GPU test
// GpuDynamicDims.BroadcastsOverTheRowsAreRightAtEverySize checks the values.)

// CHECK: struct TgBody {
// CHECK: long long numel_;
// CHECK-DAG: = in1[(i / 24u)];
// CHECK-DAG: = in2[(i % 24u)];
!x = tensor<?x?x24xf32, #tg.sizes<[batch, seq, 24]>>
!s = tensor<?x?x1xf32, #tg.sizes<[batch, seq, 1]>>
func.func @rows(%x: !x, %scale: !s, %bias: tensor<24xf32>) -> !x attributes {tg.symbols = [#tg.symbol<"batch", 1, 64>, #tg.symbol<"seq", 1, 512>]} {
  %0 = tg.broadcast %scale dims = [0, 1, 2] : !s to !x
  %1 = tg.broadcast %bias dims = [2] : tensor<24xf32> to !x
  %2 = tg.mul %x, %0 : !x
  %3 = tg.add %2, %1 : !x
  return %3 : !x
}
