// RUN: tg-opt %s -split-input-file | tg-opt -split-input-file | FileCheck %s
//
// Dynamic dims in the IR (issue 18, in progress): a function's symbols (#tg.symbol: a name and
// a range) and a tensor's sizes as polynomials of them (#tg.sizes). The sizes are canonical:
// terms ordered with the symbols numbered by name, so equal polynomials print (and compare)
// equal however they were written.

// CHECK-LABEL: func.func @symbols
// CHECK-SAME: tg.a = #tg.sizes<[batch*seq, 64, 2*batch*seq - seq - 1, 0]>
// CHECK-SAME: tg.b = #tg.sizes<[batch*seq, 64, 2*batch*seq - seq - 1, 0]>
// CHECK-SAME: tg.symbols = [#tg.symbol<"seq", 2, 8192>, #tg.symbol<"batch", 1, 256>]
func.func @symbols() attributes {
    tg.symbols = [#tg.symbol<"seq", 2, 8192>, #tg.symbol<"batch", 1, 256>],
    tg.a = #tg.sizes<[seq * batch, 64, -seq + 2 * batch * seq - 1, 0]>,
    tg.b = #tg.sizes<[batch*seq, 64, 2*batch*seq - seq - 1, seq - seq]>} {
  return
}
