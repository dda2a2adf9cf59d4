// Decode-sized attention's plan (issue 17): the split-key (flash-decoding) kernel splits the
// 640 keys into chunks (at least a wave of blocks, the last wave nearly full, here at most one
// tile of 8 keys a warp: 10 chunks), writes each chunk's partials to a scratch buffer in the
// arena and a combine kernel, launched next with the same buffers, rescales them into the
// output. Fewer SMs: fewer, longer chunks (8 SMs, one block each with a mask: 2 chunks for the
// 4 heads).
// RUN: tgc dump %s --arch=sm_90a --sm-count=132 --stage=plan | FileCheck %s
// CHECK: plan @decode for sm_90a: 2 kernel(s), 2 launch(es), arena 83200 bytes
// CHECK: buffer 7: arena +0, 83200 bytes  (scratch of the kernels' partial results)
// CHECK: launch [[K:tg_a0_[a-z0-9_]+]] grid(10,4,1) block(256,1,1) {{.*}} buffers [5, 6, 0, 3, 4, 7]  split-key attention (10 chunk(s) of 64 keys, 256 threads a block, then a combine): 4 x softmax([4 x 128] @ [128 x 640]) @ [640 x 128]
// CHECK-NEXT: launch [[K]]_combine (for [[K]]) grid(4,4,1) block(128,1,1) {{.*}} buffers [5, 6, 0, 3, 4, 7]  the combine of split-key attention
// CHECK-NEXT: results: [buffer 4]
// RUN: tgc dump %s --arch=sm_90a --sm-count=8 --stage=plan | FileCheck %s --check-prefix=FEW
// FEW: arena 16640 bytes
// FEW: grid(2,4,1) block(256,1,1) {{.*}} split-key attention (2 chunk(s) of 320 keys
// The CUDA source: the kernel and its combine are two phases of one template.
// RUN: tgc dump %s --arch=sm_90a --sm-count=132 --stage=cuda | FileCheck %s --check-prefix=CUDA
// CUDA: ===== cuda: [[K:tg_a0_[a-z0-9_]+]].cu =====
// CUDA: #define TG_PHASE 0
// CUDA: #define TG_SPLITS 10
// CUDA: #define TG_CHUNK 64
// The position mask takes registers: no cap for two blocks a multiprocessor.
// CUDA-NOT: #define TG_MIN_BLOCKS 2
// CUDA: ===== cuda: [[K]]_combine.cu =====
// CUDA: #define TG_PHASE 1
// Without attention fusion: the scores go through memory (a gemv, a row kernel, a matmul).
// RUN: tgc dump %s --arch=sm_90a --no-fuse-attention --stage=plan | FileCheck %s --check-prefix=APART
// APART: plan @decode for sm_90a: 3 kernel(s), 3 launch(es)
// APART-NOT: attention

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

