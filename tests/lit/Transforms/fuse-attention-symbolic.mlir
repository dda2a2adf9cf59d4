// RUN: tg-opt %s -split-input-file -verify-diagnostics --tg-fuse-attention | FileCheck %s
//
// Over dynamic dims (tg.symbols: issue 18) attention with many query rows becomes one
// flash-attention fusion as over static ones (the kernel takes the batch, the rows and the
// keys as size arguments); keys that are not rows in memory are copied into rows first;
// decode-sized attention (a few rows at most over the ranges) stays separate kernels and says
// why. (The IR fuzz target, which runs the pipeline on any verified module as tg-opt does,
// crashed tg-decompose on such a function before it learnt dynamic dims:
// decompose-symbolic.mlir.)

!q = tensor<?x4x?x64xbf16, #tg.sizes<[b, 4, s, 64]>>
!s = tensor<?x4x?x?xbf16, #tg.sizes<[b, 4, s, s]>>
!f = tensor<?x4x?x?xf32, #tg.sizes<[b, 4, s, s]>>
// CHECK-LABEL: func.func @causal
// CHECK-NEXT: %[[O:.+]] = tg.fusion attention
// CHECK: tg.matmul {{.*}} transpose_b
// CHECK: tg.softmax
// CHECK: tg.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[O]]
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

// -----

// Keys split into heads by a transpose: copied into rows (an elementwise fusion over the
// dynamic dims), then read by the attention.
!q = tensor<?x4x?x64xbf16, #tg.sizes<[b, 4, s, 64]>>
!kt = tensor<?x?x4x64xbf16, #tg.sizes<[b, s, 4, 64]>>
!s = tensor<?x4x?x?xbf16, #tg.sizes<[b, 4, s, s]>>
// CHECK-LABEL: func.func @keys_split_into_heads
// CHECK-NEXT: %[[K:.+]] = tg.fusion elementwise(%arg1) : (tensor<?x?x4x64xbf16, #tg.sizes<[b, s, 4, 64]>>) -> tensor<?x4x?x64xbf16, #tg.sizes<[b, 4, s, 64]>>
// CHECK: tg.transpose {{.*}} perm = [0, 2, 1, 3]
// CHECK: tg.fusion attention(%arg0, %[[K]], %arg2)
func.func @keys_split_into_heads(%q: !q, %kt: !kt, %v: !q) -> !q attributes {tg.symbols = [#tg.symbol<"b", 1, 8>, #tg.symbol<"s", 1, 4096>]} {
  %k = tg.transpose %kt perm = [0, 2, 1, 3] : !kt to !q
  %0 = tg.matmul %q, %k transpose_b : !q, !q -> !s
  %1 = tg.softmax %0 axis = 3 : !s
  %2 = tg.matmul %1, %v : !s, !q -> !q
  return %2 : !q
}

// -----

// A few query rows against a dynamic number of keys: the decode-sized kernels do not take
// dynamic dims, so the softmax is left to tg-decompose.
!q = tensor<4x4x64xbf16>
!k = tensor<4x?x64xbf16, #tg.sizes<[4, n, 64]>>
!s = tensor<4x4x?xbf16, #tg.sizes<[4, 4, n]>>
// CHECK-LABEL: func.func @decode_sized
// CHECK-NOT: tg.fusion
// CHECK: tg.softmax
func.func @decode_sized(%q: !q, %k: !k, %v: !k) -> !q attributes {tg.symbols = [#tg.symbol<"n", 1, 4096>]} {
  %0 = tg.matmul %q, %k transpose_b : !q, !k -> !s
  // expected-remark @+1 {{not fused into an attention kernel: 4 query rows per head at most over the symbols' ranges: over dynamic dims only the flash-attention kernel (more than 16 rows) is generated; decode-sized attention stays separate kernels}}
  %1 = tg.softmax %0 axis = 2 : !s
  %2 = tg.matmul %1, %v : !s, !k -> !q
  return %2 : !q
}

// -----

// A softmax that is no attention gets no remark.
// CHECK-LABEL: func.func @softmax
// CHECK: tg.softmax
!x = tensor<?x16xf32, #tg.sizes<[n, 16]>>
func.func @softmax(%x: !x) -> !x attributes {tg.symbols = [#tg.symbol<"n", 1, 64>]} {
  %0 = tg.softmax %x axis = 1 : !x
  return %0 : !x
}
