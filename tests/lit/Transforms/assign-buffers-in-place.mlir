// RUN: tg-opt %s -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(func.func(tg-fuse{remarks=false}, tg-assign-buffers))' | FileCheck %s
//
// A dynamic_update_slice whose input is dead after it updates that input in place: its result
// is an alias of the input's buffer (kernel input 0) and the kernel is marked tg.in_place. Each
// decision is a remark and a note (tg.update) that the report shows.

// A donated argument, and a kernel's result that nothing reads later: both in place; the
// result returned is then the argument's memory, resp. the output buffer the neg writes.
// CHECK-LABEL: func.func @in_place
// CHECK: tg.fusion elementwise
// CHECK-SAME: tg.buffers = [#tg.buffer<kind = alias, index = -1, offset = 0, bytes = 512>]
// CHECK-SAME: tg.in_place
// CHECK-SAME: tg.update = "dynamic_update_slice at {{.+}}: in place, in the memory of argument 0 (donated)"
// CHECK: tg.fusion elementwise
// CHECK-SAME: kind = output, index = 1
// CHECK: tg.neg
// CHECK: tg.fusion elementwise
// CHECK-SAME: kind = alias
// CHECK-SAME: tg.in_place
// CHECK-SAME: in place, in the memory of the result of the kernel at
func.func @in_place(%cache: tensor<2x16x8xbf16> {tg.donated}, %k: tensor<2x1x8xbf16>, %pos: tensor<i32>,
                    %x: tensor<4x8xf32>, %row: tensor<1x8xf32>) -> (tensor<2x16x8xbf16>, tensor<4x8xf32>) {
  // expected-remark @+1 {{in place, in the memory of argument 0 (donated)}}
  %0 = tg.dynamic_update_slice %cache, %k, %pos axis = 1 offsets = [0, 0, 0] check = 1 : (tensor<2x16x8xbf16>, tensor<2x1x8xbf16>, tensor<i32>) -> tensor<2x16x8xbf16>
  %1 = tg.neg %x : tensor<4x8xf32>
  // expected-remark @+1 {{in place, in the memory of the result of the kernel at}}
  %2 = tg.dynamic_update_slice %1, %row, %pos axis = 0 offsets = [0, 0] check = 2 : (tensor<4x8xf32>, tensor<1x8xf32>, tensor<i32>) -> tensor<4x8xf32>
  return %0, %2 : tensor<2x16x8xbf16>, tensor<4x8xf32>
}

// -----

// Copies, and why: an argument that is not donated, an input read later (by a kernel that
// needs the update's result too), an input that is also a result, an update that reads the
// input's memory. (A reader fused into the kernel that makes the input runs before the
// update: that input is updated in place, as in @in_place.)
// CHECK-LABEL: func.func @copies
// CHECK-NOT: tg.in_place
// CHECK: return
func.func @copies(%x: tensor<4x8xf32>, %row: tensor<1x8xf32>, %pos: tensor<i32>, %d: tensor<4x8xf32> {tg.donated})
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  // expected-remark @+1 {{copies its input, since its input is argument 0 of the function, which is not donated (JitOptions::donate)}}
  %0 = tg.dynamic_update_slice %x, %row, %pos axis = 0 offsets = [0, 0] check = 1 : (tensor<4x8xf32>, tensor<1x8xf32>, tensor<i32>) -> tensor<4x8xf32>
  %1 = tg.neg %x : tensor<4x8xf32>
  // expected-remark @+1 {{copies its input, since its input is read after it, by 'tg.fusion'}}
  %2 = tg.dynamic_update_slice %1, %row, %pos axis = 0 offsets = [0, 0] check = 2 : (tensor<4x8xf32>, tensor<1x8xf32>, tensor<i32>) -> tensor<4x8xf32>
  %3 = tg.add %1, %2 : tensor<4x8xf32>
  %4 = tg.abs %x : tensor<4x8xf32>
  // expected-remark @+1 {{copies its input, since its input is also a result of the function}}
  %5 = tg.dynamic_update_slice %4, %row, %pos axis = 0 offsets = [0, 0] check = 3 : (tensor<4x8xf32>, tensor<1x8xf32>, tensor<i32>) -> tensor<4x8xf32>
  %6 = tg.slice %d starts = [0, 0] limits = [1, 8] steps = [1, 1] : tensor<4x8xf32> to tensor<1x8xf32>
  // expected-remark @+1 {{copies its input, since its update or start reads the input's memory}}
  %7 = tg.dynamic_update_slice %d, %6, %pos axis = 0 offsets = [0, 0] check = 4 : (tensor<4x8xf32>, tensor<1x8xf32>, tensor<i32>) -> tensor<4x8xf32>
  return %0, %2, %3, %4, %5, %7 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// The input is a reshape of a kernel's result that a later kernel reads directly: a copy.
// CHECK-LABEL: func.func @sibling_reader
// CHECK-NOT: tg.in_place
// CHECK: return
func.func @sibling_reader(%x: tensor<4x8xf32>, %row: tensor<1x32xf32>, %pos: tensor<i32>) -> (tensor<1x32xf32>, tensor<4x8xf32>) {
  %0 = tg.neg %x : tensor<4x8xf32>
  %1 = tg.reshape %0 : tensor<4x8xf32> to tensor<1x32xf32>
  // expected-remark @+1 {{copies its input, since its input is read after it, by 'tg.fusion'}}
  %2 = tg.dynamic_update_slice %1, %row, %pos axis = 0 offsets = [0, 0] check = 1 : (tensor<1x32xf32>, tensor<1x32xf32>, tensor<i32>) -> tensor<1x32xf32>
  %3 = tg.reshape %2 : tensor<1x32xf32> to tensor<4x8xf32>
  %4 = tg.add %0, %3 : tensor<4x8xf32>
  return %2, %4 : tensor<1x32xf32>, tensor<4x8xf32>
}
