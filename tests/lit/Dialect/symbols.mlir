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

// -----

// CHECK-LABEL: func.func @signs_and_powers
// CHECK-SAME: tg.c = #tg.sizes<[-T + 3, T*T, 4*T, 1]>
func.func @signs_and_powers() attributes {tg.c = #tg.sizes<[3 - T, T * T, T + T * 3, - -1]>} {
  return
}

// -----

// Ops on symbolic types verify by the concrete shape rules at sample sizes of the symbols.
// CHECK-LABEL: func.func @block
// CHECK: tg.reshape %{{.+}} : tensor<?x?x16xf32, #tg.sizes<[batch, seq, 16]>> to tensor<?x16xf32, #tg.sizes<[batch*seq, 16]>>
// CHECK: tg.matmul %{{.+}}, %{{.+}} : tensor<?x16xf32, #tg.sizes<[batch*seq, 16]>>, tensor<16x32xf32> -> tensor<?x32xf32, #tg.sizes<[batch*seq, 32]>>
// CHECK: tg.cmp lt, %{{.+}}, %{{.+}} : tensor<?x32xi32, #tg.sizes<[batch*seq, 32]>>
// CHECK: tg.reduce_sum %{{.+}} axes = [1] : tensor<?x?x16xf32, #tg.sizes<[batch, seq, 16]>> to tensor<?x16xf32, #tg.sizes<[batch, 16]>>
!x = tensor<?x?x16xf32, #tg.sizes<[batch, seq, 16]>>
!r = tensor<?x16xf32, #tg.sizes<[batch*seq, 16]>>
func.func @block(%x: !x, %w: tensor<16x32xf32>) -> tensor<?x32xf32, #tg.sizes<[seq*batch, 32]>>
    attributes {tg.symbols = [#tg.symbol<"batch", 1, 256>, #tg.symbol<"seq", 1, 8192>]} {
  %0 = tg.relu %x : !x
  %1 = tg.reshape %0 : !x to !r
  %2 = tg.softmax %1 axis = 1 : !r
  %3 = tg.matmul %2, %w : !r, tensor<16x32xf32> -> tensor<?x32xf32, #tg.sizes<[batch*seq, 32]>>
  %4 = tg.iota axis = 1 : tensor<?x32xi32, #tg.sizes<[batch*seq, 32]>>
  %5 = tg.iota axis = 0 : tensor<?x32xi32, #tg.sizes<[batch*seq, 32]>>
  %6 = tg.cmp lt, %4, %5 : tensor<?x32xi32, #tg.sizes<[batch*seq, 32]>>
  %7 = tg.reduce_sum %x axes = [1] : !x to tensor<?x16xf32, #tg.sizes<[batch, 16]>>
  return %3 : tensor<?x32xf32, #tg.sizes<[batch*seq, 32]>>
}

// -----

// CHECK-LABEL: func.func @check
// CHECK: tg.check %{{.+}} id = 3 : tensor<?xi1, #tg.sizes<[n]>>
func.func @check(%c: tensor<?xi1, #tg.sizes<[n]>>) attributes {tg.symbols = [#tg.symbol<"n", 1, 64>]} {
  tg.check %c id = 3 : tensor<?xi1, #tg.sizes<[n]>>
  return
}

// -----

// Slice bounds and update offsets that depend on symbols: `?` in the integers, sizes beside.
// CHECK-LABEL: func.func @bounds
// CHECK: tg.slice %{{.+}} starts = [0, 0] limits = [T, 4] steps = [1, 1] : tensor<?x8xf32, #tg.sizes<[T, 8]>> to tensor<?x4xf32, #tg.sizes<[T, 4]>>
// CHECK: tg.slice %{{.+}} starts = [T - 1, 0] limits = [T, 8] steps = [1, 1] : tensor<?x8xf32, #tg.sizes<[T, 8]>> to tensor<1x8xf32>
// CHECK: tg.slice %{{.+}} starts = [0] limits = [T + 4] steps = [1] : tensor<64xf32> to tensor<?xf32, #tg.sizes<[T + 4]>>
// CHECK: tg.dynamic_update_slice %{{.+}}, %{{.+}}, %{{.+}} axis = 1 offsets = [T - 1, 0, 0] check = 1
// CHECK: tg.dynamic_update_slice %{{.+}}, %{{.+}}, %{{.+}} axis = 1 offsets = [2, 0, 0] check = 1
!x = tensor<?x8xf32, #tg.sizes<[T, 8]>>
func.func @bounds(%x: !x, %c: tensor<64xf32>, %cache: tensor<16x8x4xf32>, %u: tensor<1x?x4xf32, #tg.sizes<[1, T, 4]>>,
                  %p: tensor<i32>) attributes {tg.symbols = [#tg.symbol<"T", 1, 8>]} {
  %0 = tg.slice %x starts = [0, 0] limits = [T, 4] steps = [1, 1] : !x to tensor<?x4xf32, #tg.sizes<[T, 4]>>
  %1 = tg.slice %x starts = [T - 1, 0] limits = [T, 8] steps = [1, 1] : !x to tensor<1x8xf32>
  %2 = tg.slice %c starts = [0] limits = [4 + T] steps = [1] : tensor<64xf32> to tensor<?xf32, #tg.sizes<[T + 4]>>
  %3 = tg.dynamic_update_slice %cache, %u, %p axis = 1 offsets = [T - 1, 0, 0] check = 1
       : (tensor<16x8x4xf32>, tensor<1x?x4xf32, #tg.sizes<[1, T, 4]>>, tensor<i32>) -> tensor<16x8x4xf32>
  // A constant written as a sum is a plain integer.
  %4 = tg.dynamic_update_slice %cache, %u, %p axis = 1 offsets = [3 - 1, 0, 0] check = 1
       : (tensor<16x8x4xf32>, tensor<1x?x4xf32, #tg.sizes<[1, T, 4]>>, tensor<i32>) -> tensor<16x8x4xf32>
  return
}

// -----

// A size as a number: the decoder's next position, pos + T.
// CHECK-LABEL: func.func @next_position
// CHECK: %[[T:.+]] = tg.size #tg.sizes<[T]> as tensor<i32>
// CHECK: tg.add %{{.+}}, %[[T]] : tensor<i32>
func.func @next_position(%pos: tensor<i32>) -> tensor<i32> attributes {tg.symbols = [#tg.symbol<"T", 1, 8>]} {
  %t = tg.size #tg.sizes<[T]> as tensor<i32>
  %0 = tg.add %pos, %t : tensor<i32>
  return %0 : tensor<i32>
}
