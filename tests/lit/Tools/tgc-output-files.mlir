// `tgc run --output` into odd targets and under write failures: a symbolic link is followed to
// the file it names, a pipe is written into, a directory or a dangling link is refused, and a
// file-size limit is an error (not death by SIGXFSZ) that leaves no temporary file.
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/Inputs/npy.py write %t/x.npy '<f4' 32 $(seq 32)
//
// A symbolic link to a regular file: the file is replaced, the link stays a link.
// RUN: echo old > %t/real.npy && ln -s real.npy %t/link.npy
// RUN: tgc run %s --input %t/x.npy --output %t/link.npy --device cpu
// RUN: test -L %t/link.npy
// RUN: python3 %S/Inputs/npy.py print %t/real.npy | FileCheck %s --check-prefix=DATA
// DATA: <f4 (32, 32) 2 4 6 8
//
// Standard output, through a private link to /proc/self/fd/1 (as /dev/stdout is one; the real
// /dev/stdout is not used, so that a regression cannot replace it): the bytes go down the pipe.
// RUN: ln -s /proc/self/fd/1 %t/stdout
// RUN: tgc run %s --input %t/x.npy --output %t/stdout --device cpu | python3 %S/Inputs/npy.py print /dev/stdin | FileCheck %s --check-prefix=DATA
// RUN: test -L %t/stdout
//
// RUN: mkdir %t/adir
// RUN: not tgc run %s --input %t/x.npy --output %t/adir --device cpu 2>&1 | FileCheck %s --check-prefix=DIR
// DIR: tgc: error: {{.*}}adir: is a directory
// RUN: ln -s nowhere/out.npy %t/dangling.npy
// RUN: not tgc run %s --input %t/x.npy --output %t/dangling.npy --device cpu 2>&1 | FileCheck %s --check-prefix=DANGLING
// DANGLING: tgc: error: {{.*}}dangling.npy: a dangling symbolic link
// RUN: test -L %t/dangling.npy
//
// A file-size limit below the output's 4224 bytes.
// RUN: mkdir %t/limited
// RUN: not sh -c 'ulimit -f 1; exec tgc run %s --input %t/x.npy --output %t/limited/y.npy --device cpu' 2>&1 | FileCheck %s --check-prefix=FSIZE
// FSIZE: tgc: error: {{.*}}limited/y.npy: write error: File too large
// RUN: ls -A %t/limited | count 0

func.func @f(%x: tensor<32xf32>) -> tensor<32x32xf32> {
  %b = tg.broadcast %x dims = [1] : tensor<32xf32> to tensor<32x32xf32>
  %y = tg.add %b, %b : tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}
