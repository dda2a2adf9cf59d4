// `tgc dump --out-dir` writes every stage as a file, and exits 1 when it cannot: a directory
// that cannot be created, a full disk (simulated by a file-size limit with SIGXFSZ ignored, so
// that write(2) fails with EFBIG as it fails with ENOSPC), or a limit with SIGXFSZ at its
// default (which used to kill tgc). No temporary or empty file is left behind.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tgc dump %s --arch=sm_80 --no-fuse-reductions --stage=plan --out-dir=%t/dump | FileCheck %s --check-prefix=OK
// OK: plan @g for sm_80
// RUN: ls %t/dump | FileCheck %s --check-prefix=FILES
// FILES: tgc.0-traced.mlir
// FILES: tgc.plan.txt
// FILES: tgc.tg_e0_exp_mul.cu
// FILES: tgc.tg_e0_exp_mul.ptx
// RUN: ls %t/dump | not grep tmp
//
// RUN: echo a file > %t/afile
// RUN: not tgc dump %s --arch=sm_80 --stage=plan --out-dir=%t/afile/dump 2>&1 | FileCheck %s --check-prefix=NOTDIR
// NOTDIR: tgc: error: cannot write {{[0-9]+}} of {{[0-9]+}} dump file(s) to {{.*}}afile/dump: cannot create the directory {{.*}}Not a directory
//
// RUN: not sh -c 'trap "" XFSZ; ulimit -f 1; exec tgc dump %s --arch=sm_80 --stage=plan --out-dir=%t/full' 2>&1 | FileCheck %s --check-prefix=FULL
// FULL: tgc: error: cannot write {{[0-9]+}} of {{[0-9]+}} dump file(s) to {{.*}}: {{.*}}write error: File too large
// RUN: ls %t/full | not grep tmp
// RUN: find %t/full -type f -empty | count 0
// RUN: not sh -c 'ulimit -f 1; exec tgc dump %s --arch=sm_80 --stage=plan --out-dir=%t/limited' 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: ls %t/limited | not grep tmp

func.func @g(%x: tensor<64x32xf32>) -> tensor<64xf32> {
  %c = tg.constant dense<2.0> : tensor<64x32xf32>
  %e = tg.exp %x : tensor<64x32xf32>
  %m = tg.mul %e, %c : tensor<64x32xf32>
  %s = tg.reduce_sum %m axes = [1] : tensor<64x32xf32> to tensor<64xf32>
  return %s : tensor<64xf32>
}
