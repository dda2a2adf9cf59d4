// RUN: tgc dump %s --stage=plan --arch=sm_90a | FileCheck %s
// RUN: tgc dump %s --stage=cuda --arch=sm_90a | FileCheck %s --check-prefix=CUDA
//
// Causal attention over dynamic batch and sequence length (issue 18): one flash-attention
// kernel whose batch (4 heads x b), rows and keys are size arguments, its grid ceil(s / 192)
// x 4 b and its keys' and values' tensor maps sized at each run; the causal mask still skips
// key blocks (blockMask over the run's rows and keys).

// CHECK: symbols: b in [1, 8] s in [1, 4096]
// CHECK: launch tg_a0_{{.*}} grid from sizes (ceil((s) / 192) * (4*b)) sizes [4*b, s, b] tma(arg 1: dims 64x(s)x(4*b), box 64x128x1, swizzle 128B) tma(arg 2: dims 64x(s)x(4*b), box 64x64x1, swizzle 128B)  flash attention (wgmma + TMA, 192 x 128 tiles, 4 stages, 1 mask(s) skipping key blocks): 4*b x softmax([s x 64] @ [64 x s]) @ [s x 64]
// CUDA: long long z0_, z1_, z2_;
// CUDA: long long batches() const { return z0_; }
// CUDA: long long rows() const { return z1_; }
// CUDA: long long keys() const { return z1_; }
// CUDA: void blockMask(
// CUDA: (double)(sLo) <= (double)(mHi)

!q = tensor<?x4x?x64xbf16, #tg.sizes<[b, 4, s, 64]>>
!s = tensor<?x4x?x?xbf16, #tg.sizes<[b, 4, s, s]>>
!f = tensor<?x4x?x?xf32, #tg.sizes<[b, 4, s, s]>>
func.func @causal(%q: !q, %k: !q, %v: !q) -> !q attributes {tg.symbols = [#tg.symbol<"b", 1, 8>, #tg.symbol<"s", 1, 4096>]} {
  %0 = tg.matmul %q, %k transpose_b : !q, !q -> !s
  %1 = tg.cast %0 : !s to !f
  %r = tg.iota axis = 2 : tensor<1x1x?x1xi32, #tg.sizes<[1, 1, s, 1]>>
  %c = tg.iota axis = 3 : tensor<1x1x1x?xi32, #tg.sizes<[1, 1, 1, s]>>
  %rb = tg.broadcast %r dims = [0, 1, 2, 3] : tensor<1x1x?x1xi32, #tg.sizes<[1, 1, s, 1]>> to tensor<1x1x?x?xi32, #tg.sizes<[1, 1, s, s]>>
  %cb = tg.broadcast %c dims = [0, 1, 2, 3] : tensor<1x1x1x?xi32, #tg.sizes<[1, 1, 1, s]>> to tensor<1x1x?x?xi32, #tg.sizes<[1, 1, s, s]>>
  %le = tg.cmp le, %cb, %rb : tensor<1x1x?x?xi32, #tg.sizes<[1, 1, s, s]>>
  %m = tg.broadcast %le dims = [0, 1, 2, 3] : tensor<1x1x?x?xi1, #tg.sizes<[1, 1, s, s]>> to tensor<?x4x?x?xi1, #tg.sizes<[b, 4, s, s]>>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %nb = tg.broadcast %ninf dims = [] : tensor<f32> to !f
  %2 = tg.select %m, %1, %nb : tensor<?x4x?x?xi1, #tg.sizes<[b, 4, s, s]>>, !f
  %3 = tg.softmax %2 axis = 3 : !f
  %4 = tg.cast %3 : !f to !s
  %5 = tg.matmul %4, %v : !s, !q -> !q
  return %5 : !q
}

