// tgc's command line: integers are parsed with checked conversions (std::stoi aborted tgc on
// --sm-count=abc or a count past int), --help and -h print the usage to stdout and exit 0.
// RUN: tgc --help | FileCheck %s --check-prefix=HELP
// RUN: tgc -h | FileCheck %s --check-prefix=HELP
// RUN: tgc dump %s --help | FileCheck %s --check-prefix=HELP
// HELP: usage:
// HELP: tgc dump FILE.mlir|EXAMPLE
// RUN: not tgc 2>&1 | FileCheck %s --check-prefix=NOCMD
// NOCMD: tgc: error: no command given
// RUN: not tgc dump %s --sm-count=abc 2>&1 | FileCheck %s --check-prefix=SMABC
// SMABC: tgc: error: --sm-count takes a count from 1 to 100000, got 'abc'
// RUN: not tgc dump %s --sm-count=99999999999 2>&1 | FileCheck %s --check-prefix=SMBIG
// SMBIG: tgc: error: --sm-count takes a count from 1 to 100000, got '99999999999'
// RUN: not tgc dump %s --sm-count 12x 2>&1 | FileCheck %s --check-prefix=SMTAIL
// SMTAIL: tgc: error: --sm-count takes a count from 1 to 100000, got '12x'
// RUN: not tgc run %s --output %t.npy --bench=abc 2>&1 | FileCheck %s --check-prefix=BENCHABC
// BENCHABC: tgc: error: --bench takes a count from 1 to 100000, got 'abc'
// RUN: tgc dump %s --sm-count=8 --stage=plan | FileCheck %s --check-prefix=OK
// OK: plan @f for sm_90a: 1 kernel(s)

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tg.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
