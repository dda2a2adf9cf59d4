// RUN: tgc dump %s --stage=plan --arch=sm_90a | FileCheck %s
// RUN: tgc dump %s --stage=cuda --arch=sm_90a | FileCheck %s --check-prefix=CUDA
//
// A function with dynamic dims whose kernels are all elementwise compiles once for its ranges
// (issue 18): one symbolic plan whose buffers, grid and the kernel's element count are
// polynomials of the symbols, evaluated at each call (rt::evaluatePlanSizes). The kernel takes
// the count after its pointers and sizes its index type for the largest one in the ranges.

// CHECK: plan @chain for sm_90a: 1 kernel(s), 1 launch(es)
// CHECK: symbols: batch in [1, 64] seq in [1, 512]
// CHECK: buffer 0: input 0, 128*batch*seq bytes
// CHECK: buffer 2: output 0, 128*batch*seq bytes
// CHECK: buffer 3: output 1, 256*batch*seq bytes
// CHECK: grid from sizes (ceil((64*batch*seq) / 8192)) sizes [64*batch*seq]
// CHECK-SAME: 64*batch*seq elements, vector width 8

// CUDA: struct TgBody {
// CUDA-NEXT: typedef unsigned Index;
// CUDA-NOT: kNumel
// CUDA: float* __restrict__ out1;
// CUDA-NEXT: long long numel_;
// CUDA-NEXT: Index numel() const { return (Index)numel_; }

!x = tensor<?x64xbf16, #tg.sizes<[batch*seq, 64]>>
!f = tensor<?x64xf32, #tg.sizes<[batch*seq, 64]>>
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
