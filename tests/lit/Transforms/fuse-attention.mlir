// RUN: tg-opt %s -split-input-file -tg-fuse-attention 2>/dev/null | FileCheck %s
// RUN: tg-opt %s -split-input-file -tg-fuse-attention 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: tg-opt %s -split-input-file -tg-fuse-attention=arch=sm_80 2>&1 >/dev/null | FileCheck %s --check-prefix=SM80
// RUN: tg-opt %s -split-input-file -tg-fuse-attention=decode=false 2>&1 >/dev/null | FileCheck %s --check-prefix=NODECODE
// RUN: tg-opt %s -split-input-file -tg-fuse-attention=decode=false 2>/dev/null | FileCheck %s --check-prefix=SPLIT
//
// softmax(modify(q @ k^T)) @ v of decode size becomes one attention fusion; the mask's cone
// (iotas, a position) and the scale are cloned in, the keys' and values' layer windows are
// read through their cloned slices. The split-key kernel takes it, so it is fused without the
// cluster kernel (decode=false) too.

// CHECK-LABEL: func.func @decode
// CHECK-SAME: (%[[Q:.+]]: tensor<4x4x128xbf16>, %[[KC:.+]]: tensor<2x4x640x128xbf16>, %[[VC:.+]]: tensor<2x4x640x128xbf16>, %[[POS:.+]]: tensor<i32>)
// CHECK-NEXT: %[[O:.+]] = tg.fusion attention(%[[KC]], %[[VC]], %[[Q]], %[[POS]])
// CHECK: tg.slice
// CHECK: tg.matmul {{.*}} transpose_b
// CHECK: tg.iota
// CHECK: tg.cmp le
// CHECK: tg.select
// CHECK: tg.softmax
// CHECK: tg.cast {{.*}} to tensor<4x4x640xbf16>
// CHECK: %[[PV:.+]] = tg.matmul
// CHECK: tg.yield %[[PV]]
// CHECK: return %[[O]]
// SPLIT-LABEL: func.func @decode
// SPLIT-NEXT: tg.fusion attention
func.func @decode(%q: tensor<4x4x128xbf16>, %kc: tensor<2x4x640x128xbf16>, %vc: tensor<2x4x640x128xbf16>,
                  %pos: tensor<i32>) -> tensor<4x4x128xbf16> {
  %k0 = tg.slice %kc starts = [1, 0, 0, 0] limits = [2, 4, 640, 128] steps = [1, 1, 1, 1] : tensor<2x4x640x128xbf16> to tensor<1x4x640x128xbf16>
  %k = tg.reshape %k0 : tensor<1x4x640x128xbf16> to tensor<4x640x128xbf16>
  %v0 = tg.slice %vc starts = [1, 0, 0, 0] limits = [2, 4, 640, 128] steps = [1, 1, 1, 1] : tensor<2x4x640x128xbf16> to tensor<1x4x640x128xbf16>
  %v = tg.reshape %v0 : tensor<1x4x640x128xbf16> to tensor<4x640x128xbf16>
  %s = tg.matmul %q, %k transpose_b : tensor<4x4x128xbf16>, tensor<4x640x128xbf16> -> tensor<4x4x640xbf16>
  %sf = tg.cast %s : tensor<4x4x640xbf16> to tensor<4x4x640xf32>
  %scale = tg.constant dense<0.0883883> : tensor<4x4x640xf32>
  %ss = tg.mul %sf, %scale : tensor<4x4x640xf32>
  %keyPos = tg.iota axis = 2 : tensor<1x1x640xi32>
  %p0 = tg.broadcast %pos dims = [] : tensor<i32> to tensor<1x1x640xi32>
  %visible = tg.cmp le, %keyPos, %p0 : tensor<1x1x640xi32>
  %vb = tg.broadcast %visible dims = [0, 1, 2] : tensor<1x1x640xi1> to tensor<4x4x640xi1>
  %ninf = tg.constant dense<0xFF800000> : tensor<4x4x640xf32>
  %masked = tg.select %vb, %ss, %ninf : tensor<4x4x640xi1>, tensor<4x4x640xf32>
  %p = tg.softmax %masked axis = 2 : tensor<4x4x640xf32>
  %pb = tg.cast %p : tensor<4x4x640xf32> to tensor<4x4x640xbf16>
  %o = tg.matmul %pb, %v : tensor<4x4x640xbf16>, tensor<4x640x128xbf16> -> tensor<4x4x128xbf16>
  return %o : tensor<4x4x128xbf16>
}

// -----

// Head dim 96 is not a power of two of 16-byte chunks: the split-key kernel does not take it,
// the cluster kernel does, and without that kernel (decode=false) it stays apart, with both
// reasons.
// CHECK-LABEL: func.func @decode_head_dim_96
// CHECK-NEXT: tg.fusion attention
// SPLIT-LABEL: func.func @decode_head_dim_96
// SPLIT-NOT: tg.fusion
// NODECODE: remark: not fused into an attention kernel: 4 query rows per head and head dim 96: the split-key kernel takes rows of a power of two of 16-byte chunks, up to 32; such decode-sized attention stays separate kernels
func.func @decode_head_dim_96(%q: tensor<4x4x96xbf16>, %k: tensor<4x640x96xbf16>, %v: tensor<4x640x96xbf16>) -> tensor<4x4x96xbf16> {
  %s = tg.matmul %q, %k transpose_b : tensor<4x4x96xbf16>, tensor<4x640x96xbf16> -> tensor<4x4x640xbf16>
  %sf = tg.cast %s : tensor<4x4x640xbf16> to tensor<4x4x640xf32>
  %p = tg.softmax %sf axis = 2 : tensor<4x4x640xf32>
  %pb = tg.cast %p : tensor<4x4x640xf32> to tensor<4x4x640xbf16>
  %o = tg.matmul %pb, %v : tensor<4x4x640xbf16>, tensor<4x640x96xbf16> -> tensor<4x4x96xbf16>
  return %o : tensor<4x4x96xbf16>
}

// -----

// Prefill-sized in f32: 512 query rows per head take the flash-attention kernel, whose
// products run on wgmma in bf16 or f16; they stay separate kernels, with the reason.
// CHECK-LABEL: func.func @prefill
// CHECK-NOT: tg.fusion
// SPLIT-LABEL: func.func @prefill(
// REMARK: remark: not fused into an attention kernel: 512 query rows per head: the flash-attention kernel takes q, k, v and the probabilities all bf16 or all f16
func.func @prefill(%q: tensor<4x512x64xf32>, %k: tensor<4x512x64xf32>, %v: tensor<4x512x64xf32>) -> tensor<4x512x64xf32> {
  %s = tg.matmul %q, %k transpose_b : tensor<4x512x64xf32>, tensor<4x512x64xf32> -> tensor<4x512x512xf32>
  %p = tg.softmax %s axis = 2 : tensor<4x512x512xf32>
  %o = tg.matmul %p, %v : tensor<4x512x512xf32>, tensor<4x512x64xf32> -> tensor<4x512x64xf32>
  return %o : tensor<4x512x64xf32>
}

// -----

// Causal prefill in bf16 (the flash-attention kernel, sm_90a): the scale and the mask's
// iotas are cloned in as the score modifier. On sm_80 it stays apart.
// CHECK-LABEL: func.func @prefill_causal
// CHECK-NEXT: %[[O:.+]] = tg.fusion attention
// CHECK: tg.matmul {{.*}} transpose_b
// CHECK: tg.iota
// CHECK: tg.cmp le
// CHECK: tg.select
// CHECK: tg.softmax
// CHECK: tg.yield
// SM80: remark: not fused into an attention kernel: 1000 query rows per head: the attention kernel takes at most 16 on this target (the flash-attention kernel needs sm_90a)
func.func @prefill_causal(%q: tensor<4x1000x128xbf16>, %k: tensor<4x1000x128xbf16>, %v: tensor<4x1000x128xbf16>) -> tensor<4x1000x128xbf16> {
  %s = tg.matmul %q, %k transpose_b : tensor<4x1000x128xbf16>, tensor<4x1000x128xbf16> -> tensor<4x1000x1000xbf16>
  %sf = tg.cast %s : tensor<4x1000x1000xbf16> to tensor<4x1000x1000xf32>
  %scale = tg.constant dense<0.0883883> : tensor<4x1000x1000xf32>
  %ss = tg.mul %sf, %scale : tensor<4x1000x1000xf32>
  %kp = tg.iota axis = 2 : tensor<1x1000x1000xi32>
  %qp = tg.iota axis = 1 : tensor<1x1000x1000xi32>
  %visible = tg.cmp le, %kp, %qp : tensor<1x1000x1000xi32>
  %vb = tg.broadcast %visible dims = [0, 1, 2] : tensor<1x1000x1000xi1> to tensor<4x1000x1000xi1>
  %ninf = tg.constant dense<0xFF800000> : tensor<4x1000x1000xf32>
  %masked = tg.select %vb, %ss, %ninf : tensor<4x1000x1000xi1>, tensor<4x1000x1000xf32>
  %p = tg.softmax %masked axis = 2 : tensor<4x1000x1000xf32>
  %pb = tg.cast %p : tensor<4x1000x1000xf32> to tensor<4x1000x1000xbf16>
  %o = tg.matmul %pb, %v : tensor<4x1000x1000xbf16>, tensor<4x1000x128xbf16> -> tensor<4x1000x128xbf16>
  return %o : tensor<4x1000x128xbf16>
}

// -----

// Head dims the flash kernel does not take (96), and probabilities scaled after the softmax
// (the kernel multiplies unnormalised ones): apart, with the reasons.
// CHECK-LABEL: func.func @prefill_head_dim_96
// CHECK-NOT: tg.fusion
// REMARK: remark: not fused into an attention kernel: 256 query rows per head and head dims 96 and 96: the flash-attention kernel takes equal head dims of 64, 128 or 256
func.func @prefill_head_dim_96(%q: tensor<2x256x96xbf16>, %k: tensor<2x300x96xbf16>, %v: tensor<2x300x96xbf16>) -> tensor<2x256x96xbf16> {
  %s = tg.matmul %q, %k transpose_b : tensor<2x256x96xbf16>, tensor<2x300x96xbf16> -> tensor<2x256x300xbf16>
  %p = tg.softmax %s axis = 2 : tensor<2x256x300xbf16>
  %o = tg.matmul %p, %v : tensor<2x256x300xbf16>, tensor<2x300x96xbf16> -> tensor<2x256x96xbf16>
  return %o : tensor<2x256x96xbf16>
}

// -----

// CHECK-LABEL: func.func @prefill_probs_scaled
// CHECK-NOT: tg.fusion
// REMARK: remark: not fused into an attention kernel: 256 query rows per head: the flash-attention kernel takes only casts between the softmax and p @ v
func.func @prefill_probs_scaled(%q: tensor<2x256x64xbf16>, %k: tensor<2x300x64xbf16>, %v: tensor<2x300x64xbf16>) -> tensor<2x256x64xbf16> {
  %s = tg.matmul %q, %k transpose_b : tensor<2x256x64xbf16>, tensor<2x300x64xbf16> -> tensor<2x256x300xbf16>
  %p = tg.softmax %s axis = 2 : tensor<2x256x300xbf16>
  %two = tg.constant dense<2.0> : tensor<2x256x300xbf16>
  %p2 = tg.mul %p, %two : tensor<2x256x300xbf16>
  %o = tg.matmul %p2, %v : tensor<2x256x300xbf16>, tensor<2x300x64xbf16> -> tensor<2x256x64xbf16>
  return %o : tensor<2x256x64xbf16>
}

// -----

// Scores read twice (returned as well) are not fused: they must reach memory.
// CHECK-LABEL: func.func @scores_returned
// CHECK-NOT: tg.fusion
// REMARK: remark: not fused into an attention kernel: its input is not computed from a matmul's scores
func.func @scores_returned(%q: tensor<2x4x64xf32>, %k: tensor<2x100x64xf32>, %v: tensor<2x100x32xf32>) -> (tensor<2x4x32xf32>, tensor<2x4x100xf32>) {
  %s = tg.matmul %q, %k transpose_b : tensor<2x4x64xf32>, tensor<2x100x64xf32> -> tensor<2x4x100xf32>
  %p = tg.softmax %s axis = 2 : tensor<2x4x100xf32>
  %o = tg.matmul %p, %v : tensor<2x4x100xf32>, tensor<2x100x32xf32> -> tensor<2x4x32xf32>
  return %o, %s : tensor<2x4x32xf32>, tensor<2x4x100xf32>
}

// -----

// Keys read through a transpose are not rows in memory: a copy kernel (an elementwise fusion
// of the transpose) writes them as rows, and the attention reads the copy.
// CHECK-LABEL: func.func @keys_transposed
// CHECK-SAME: (%[[Q:.+]]: tensor<2x4x64xf32>, %[[KT:.+]]: tensor<2x64x100xf32>, %[[V:.+]]: tensor<2x100x32xf32>)
// CHECK-NEXT: %[[K:.+]] = tg.fusion elementwise(%[[KT]]) : (tensor<2x64x100xf32>) -> tensor<2x100x64xf32>
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<2x64x100xf32>):
// CHECK-NEXT: %[[T:.+]] = tg.transpose %[[A]] perm = [0, 2, 1]
// CHECK-NEXT: tg.yield %[[T]]
// CHECK: %[[O:.+]] = tg.fusion attention({{.*}}%[[K]]
// CHECK-NOT: tg.transpose
// CHECK: return %[[O]]
func.func @keys_transposed(%q: tensor<2x4x64xf32>, %kt: tensor<2x64x100xf32>, %v: tensor<2x100x32xf32>) -> tensor<2x4x32xf32> {
  %k = tg.transpose %kt perm = [0, 2, 1] : tensor<2x64x100xf32> to tensor<2x100x64xf32>
  %s = tg.matmul %q, %k transpose_b : tensor<2x4x64xf32>, tensor<2x100x64xf32> -> tensor<2x4x100xf32>
  %p = tg.softmax %s axis = 2 : tensor<2x4x100xf32>
  %o = tg.matmul %p, %v : tensor<2x4x100xf32>, tensor<2x100x32xf32> -> tensor<2x4x32xf32>
  return %o : tensor<2x4x32xf32>
}

// -----

// A long cache: 16 rows x 8192 keys need 64 KiB of scores a block over 8 blocks on sm_90a (too
// many), and one block on sm_80.
// CHECK-LABEL: func.func @long_cache
// CHECK-NOT: tg.fusion
// REMARK: remark: not fused into an attention kernel: 16 x 8192 scores over 8 block(s) need 65536 bytes {{.*}} (and 16 query rows per head of head dim 64: more than the split-key kernel holds in registers and shared memory)
// SM80: remark: not fused into an attention kernel: 16 x 8192 scores over 1 block(s) need 524288 bytes
func.func @long_cache(%q: tensor<1x16x64xbf16>, %k: tensor<1x8192x64xbf16>, %v: tensor<1x8192x64xbf16>) -> tensor<1x16x64xbf16> {
  %s = tg.matmul %q, %k transpose_b : tensor<1x16x64xbf16>, tensor<1x8192x64xbf16> -> tensor<1x16x8192xbf16>
  %p = tg.softmax %s axis = 2 : tensor<1x16x8192xbf16>
  %o = tg.matmul %p, %v : tensor<1x16x8192xbf16>, tensor<1x8192x64xbf16> -> tensor<1x16x64xbf16>
  return %o : tensor<1x16x64xbf16>
}

// -----

// Head dims of 256 with 16 rows and 2048 keys: q, the scores and p @ v need more than the 48 KiB
// of shared memory a block holds.
// CHECK-LABEL: func.func @wide_heads
// CHECK-NOT: tg.fusion
// REMARK: remark: not fused into an attention kernel: q, the scores and p @ v of 16 rows need 49280 bytes
func.func @wide_heads(%q: tensor<1x16x256xbf16>, %k: tensor<1x2048x256xbf16>, %v: tensor<1x2048x256xbf16>) -> tensor<1x16x256xbf16> {
  %s = tg.matmul %q, %k transpose_b : tensor<1x16x256xbf16>, tensor<1x2048x256xbf16> -> tensor<1x16x2048xbf16>
  %p = tg.softmax %s axis = 2 : tensor<1x16x2048xbf16>
  %o = tg.matmul %p, %v : tensor<1x16x2048xbf16>, tensor<1x2048x256xbf16> -> tensor<1x16x256xbf16>
  return %o : tensor<1x16x256xbf16>
}
