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
//
// Odd files at entry names: a directory, a FIFO, a symbolic link to /dev/zero. Each is an
// invalid entry of 0 bytes; none is opened as a file (`timeout` and `ulimit -v` turn a
// regression, a hang or reading /dev/zero, into a failure). `clear` removes them all.
// RUN: rm -rf %t.odd && mkdir -p %t.odd/kernels/1111111111111111.tgk
// RUN: mkfifo %t.odd/kernels/2222222222222222.tgk && ln -s /dev/zero %t.odd/kernels/3333333333333333.tgk
// RUN: timeout 60 sh -c '%limit_memory_4g; exec tgc cache stats --dir=%t.odd' | FileCheck %s --check-prefix=ODDSTATS
// ODDSTATS: 3 entries (0 valid, 3 corrupt or foreign), 0 bytes
// RUN: timeout 60 sh -c '%limit_memory_4g; exec tgc cache list --dir=%t.odd' | FileCheck %s --check-prefix=ODDLIST
// ODDLIST-DAG: INVALID{{ +}}0 bytes {{.*}}1111111111111111.tgk (a directory, not a cache entry)
// ODDLIST-DAG: INVALID{{ +}}0 bytes {{.*}}2222222222222222.tgk (a FIFO, not a cache entry)
// ODDLIST-DAG: INVALID{{ +}}0 bytes {{.*}}3333333333333333.tgk (a symbolic link, not a cache entry)
// RUN: timeout 60 tgc cache clear --dir=%t.odd | FileCheck %s --check-prefix=ODDCLEAR
// ODDCLEAR: removed 3 file(s)
// RUN: ls -A %t.odd/kernels | count 0
//
// A directory that holds files is never removed: `clear` says so and exits 1.
// RUN: mkdir %t.odd/kernels/4444444444444444.tgk && echo mine > %t.odd/kernels/4444444444444444.tgk/notes
// RUN: not tgc cache clear --dir=%t.odd 2>%t.err | FileCheck %s --check-prefix=KEEPOUT
// KEEPOUT: removed 0 file(s)
// RUN: FileCheck %s --check-prefix=KEEPERR < %t.err
// KEEPERR: tg: kernel cache: {{.*}}4444444444444444.tgk: a directory that is not empty, not a cache entry; left in place
// KEEPERR: tgc: error: 1 file(s) in {{.*}} could not be removed
// RUN: test -f %t.odd/kernels/4444444444444444.tgk/notes
