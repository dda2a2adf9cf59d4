// `tgc cache` over a cache directory holding one foreign file.
// RUN: rm -rf %t && mkdir -p %t/kernels && echo garbage > %t/kernels/0123456789abcdef.tgk
// RUN: tgc cache stats --dir=%t | FileCheck %s --check-prefix=STATS
// STATS: kernel cache {{.*}}: 1 entries (0 valid, 1 corrupt or foreign), 8 bytes
// RUN: tgc cache list --dir=%t | FileCheck %s --check-prefix=LIST
// LIST: INVALID {{.*}}0123456789abcdef.tgk
// RUN: tgc cache clear --dir=%t | FileCheck %s --check-prefix=CLEAR
// CLEAR: removed 1 file(s)
// RUN: tgc cache stats --dir=%t | FileCheck %s --check-prefix=EMPTY
// EMPTY: 0 entries
// RUN: not tgc cache frobnicate --dir=%t 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: tgc: error: cache needs one of: stats, list, clear
