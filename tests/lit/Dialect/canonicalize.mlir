// RUN: tg-opt %s -split-input-file -canonicalize | FileCheck %s
//
// The folders and canonicalization patterns of the tg dialect. Only identities that hold bit
// for bit are applied; constant folding goes through the reference kernels.

//===----------------------------------------------------------------------===//
// Arithmetic identities
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @mul_by_one
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK-NOT: tg.mul
// CHECK: return %[[X]], %[[X]] : tensor<4xf32>, tensor<4xf32>
func.func @mul_by_one(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %one = tg.constant dense<1.0> : tensor<4xf32>
  %0 = tg.mul %x, %one : tensor<4xf32>
  %1 = tg.mul %one, %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @mul_by_one_bf16
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xbf16>)
// CHECK-NOT: tg.mul
// CHECK: return %[[X]] : tensor<2x3xbf16>
func.func @mul_by_one_bf16(%x: tensor<2x3xbf16>) -> tensor<2x3xbf16> {
  %one = tg.constant dense<1.0> : tensor<2x3xbf16>
  %0 = tg.mul %one, %x : tensor<2x3xbf16>
  return %0 : tensor<2x3xbf16>
}

// -----

// x * 2 and x * 1 with a non-splat one are not identities this folder knows.
// CHECK-LABEL: func.func @mul_not_by_one
// CHECK-SAME: (%[[X:.+]]: tensor<2xf32>)
// CHECK-DAG: %[[TWO:.+]] = tg.constant dense<2.000000e+00> : tensor<2xf32>
// CHECK-DAG: %[[MIXED:.+]] = tg.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[M0:.+]] = tg.mul %[[X]], %[[TWO]] : tensor<2xf32>
// CHECK-DAG: %[[M1:.+]] = tg.mul %[[X]], %[[MIXED]] : tensor<2xf32>
// CHECK: return %[[M0]], %[[M1]]
func.func @mul_not_by_one(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %two = tg.constant dense<2.0> : tensor<2xf32>
  %mixed = tg.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = tg.mul %x, %two : tensor<2xf32>
  %1 = tg.mul %x, %mixed : tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @div_by_one
// CHECK-SAME: (%[[X:.+]]: tensor<4xf16>)
// CHECK-NOT: tg.div
// CHECK: return %[[X]] : tensor<4xf16>
func.func @div_by_one(%x: tensor<4xf16>) -> tensor<4xf16> {
  %one = tg.constant dense<1.0> : tensor<4xf16>
  %0 = tg.div %x, %one : tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// 1 / x is not x.
// CHECK-LABEL: func.func @one_div_x
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK: %[[ONE:.+]] = tg.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK: %[[D:.+]] = tg.div %[[ONE]], %[[X]] : tensor<4xf32>
// CHECK: return %[[D]]
func.func @one_div_x(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = tg.constant dense<1.0> : tensor<4xf32>
  %0 = tg.div %one, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// x - (+0.0) = x, even for x = -0.0.
// CHECK-LABEL: func.func @sub_zero
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK-NOT: tg.sub
// CHECK: return %[[X]] : tensor<4xf32>
func.func @sub_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = tg.constant dense<0.0> : tensor<4xf32>
  %0 = tg.sub %x, %zero : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// x - (-0.0) is x + 0.0, which turns -0.0 into +0.0: kept. So is 0.0 - x.
// CHECK-LABEL: func.func @sub_negative_zero_kept
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK-DAG: %[[NZ:.+]] = tg.constant dense<-0.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[Z:.+]] = tg.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[S0:.+]] = tg.sub %[[X]], %[[NZ]] : tensor<4xf32>
// CHECK-DAG: %[[S1:.+]] = tg.sub %[[Z]], %[[X]] : tensor<4xf32>
// CHECK: return %[[S0]], %[[S1]]
func.func @sub_negative_zero_kept(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %nz = tg.constant dense<-0.0> : tensor<4xf32>
  %z = tg.constant dense<0.0> : tensor<4xf32>
  %0 = tg.sub %x, %nz : tensor<4xf32>
  %1 = tg.sub %z, %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// x + (-0.0) = x, on either side.
// CHECK-LABEL: func.func @add_negative_zero
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK-NOT: tg.add
// CHECK: return %[[X]], %[[X]] : tensor<4xf32>, tensor<4xf32>
func.func @add_negative_zero(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %nz = tg.constant dense<-0.0> : tensor<4xf32>
  %0 = tg.add %x, %nz : tensor<4xf32>
  %1 = tg.add %nz, %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// x + 0.0 is NOT x for floats: (-0.0) + (+0.0) = +0.0.
// CHECK-LABEL: func.func @add_positive_zero_kept
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK: %[[Z:.+]] = tg.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK: %[[A:.+]] = tg.add %[[X]], %[[Z]] : tensor<4xf32>
// CHECK: return %[[A]] : tensor<4xf32>
func.func @add_positive_zero_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = tg.constant dense<0.0> : tensor<4xf32>
  %0 = tg.add %x, %zero : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @add_positive_zero_kept_bf16
// CHECK-SAME: (%[[X:.+]]: tensor<4xbf16>)
// CHECK: %[[Z:.+]] = tg.constant dense<0.000000e+00> : tensor<4xbf16>
// CHECK: %[[A:.+]] = tg.add %[[X]], %[[Z]] : tensor<4xbf16>
// CHECK: return %[[A]] : tensor<4xbf16>
func.func @add_positive_zero_kept_bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %zero = tg.constant dense<0.0> : tensor<4xbf16>
  %0 = tg.add %zero, %x : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// For i32 there is one zero: x + 0, 0 + x, x - 0, x * 1, 1 * x and x / 1 are all x.
// CHECK-LABEL: func.func @int_identities
// CHECK-SAME: (%[[X:.+]]: tensor<8xi32>)
// CHECK-NOT: tg.add
// CHECK-NOT: tg.sub
// CHECK-NOT: tg.mul
// CHECK-NOT: tg.div
// CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]] :
func.func @int_identities(%x: tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>) {
  %zero = tg.constant dense<0> : tensor<8xi32>
  %one = tg.constant dense<1> : tensor<8xi32>
  %0 = tg.add %x, %zero : tensor<8xi32>
  %1 = tg.add %zero, %x : tensor<8xi32>
  %2 = tg.sub %x, %zero : tensor<8xi32>
  %3 = tg.mul %x, %one : tensor<8xi32>
  %4 = tg.mul %one, %x : tensor<8xi32>
  %5 = tg.div %x, %one : tensor<8xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>
}

// -----

// x * 0 is not folded (NaN * 0 = NaN for floats; kept for i32 as well), 0 - x is not x.
// CHECK-LABEL: func.func @int_non_identities
// CHECK-SAME: (%[[X:.+]]: tensor<8xi32>)
// CHECK-DAG: %[[ZERO:.+]] = tg.constant dense<0> : tensor<8xi32>
// CHECK-DAG: %[[M:.+]] = tg.mul %[[X]], %[[ZERO]] : tensor<8xi32>
// CHECK-DAG: %[[S:.+]] = tg.sub %[[ZERO]], %[[X]] : tensor<8xi32>
// CHECK: return %[[M]], %[[S]]
func.func @int_non_identities(%x: tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>) {
  %zero = tg.constant dense<0> : tensor<8xi32>
  %0 = tg.mul %x, %zero : tensor<8xi32>
  %1 = tg.sub %zero, %x : tensor<8xi32>
  return %0, %1 : tensor<8xi32>, tensor<8xi32>
}

// -----

// CHECK-LABEL: func.func @neg_neg
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>, %[[I:.+]]: tensor<4xi32>)
// CHECK-NOT: tg.neg
// CHECK: return %[[X]], %[[I]] : tensor<4xf32>, tensor<4xi32>
func.func @neg_neg(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = tg.neg %x : tensor<4xf32>
  %1 = tg.neg %0 : tensor<4xf32>
  %2 = tg.neg %i : tensor<4xi32>
  %3 = tg.neg %2 : tensor<4xi32>
  return %1, %3 : tensor<4xf32>, tensor<4xi32>
}

// -----

// Three negations leave one.
// CHECK-LABEL: func.func @neg_neg_neg
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK: %[[N:.+]] = tg.neg %[[X]] : tensor<4xf32>
// CHECK-NOT: tg.neg
// CHECK: return %[[N]] : tensor<4xf32>
func.func @neg_neg_neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tg.neg %x : tensor<4xf32>
  %1 = tg.neg %0 : tensor<4xf32>
  %2 = tg.neg %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @cast_same_type
// CHECK-SAME: (%[[X:.+]]: tensor<4xbf16>)
// CHECK-NOT: tg.cast
// CHECK: return %[[X]] : tensor<4xbf16>
func.func @cast_same_type(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = tg.cast %x : tensor<4xbf16> to tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// A round trip through a narrower type loses precision: not folded.
// CHECK-LABEL: func.func @cast_round_trip_kept
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK: %[[B:.+]] = tg.cast %[[X]] : tensor<4xf32> to tensor<4xbf16>
// CHECK: %[[F:.+]] = tg.cast %[[B]] : tensor<4xbf16> to tensor<4xf32>
// CHECK: return %[[F]] : tensor<4xf32>
func.func @cast_round_trip_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tg.cast %x : tensor<4xf32> to tensor<4xbf16>
  %1 = tg.cast %0 : tensor<4xbf16> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Constant folding of splats
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @fold_add_splats
// CHECK-NEXT: %[[C:.+]] = tg.constant dense<3.500000e+00> : tensor<2x3xf32>
// CHECK-NEXT: return %[[C]] : tensor<2x3xf32>
func.func @fold_add_splats() -> tensor<2x3xf32> {
  %a = tg.constant dense<1.25> : tensor<2x3xf32>
  %b = tg.constant dense<2.25> : tensor<2x3xf32>
  %0 = tg.add %a, %b : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// i32 arithmetic wraps; division truncates toward zero.
// CHECK-LABEL: func.func @fold_int_splats
// CHECK-DAG: %[[W:.+]] = tg.constant dense<-2147483648> : tensor<4xi32>
// CHECK-DAG: %[[D:.+]] = tg.constant dense<-3> : tensor<4xi32>
// CHECK: return %[[W]], %[[D]] : tensor<4xi32>, tensor<4xi32>
func.func @fold_int_splats() -> (tensor<4xi32>, tensor<4xi32>) {
  %max = tg.constant dense<2147483647> : tensor<4xi32>
  %one = tg.constant dense<1> : tensor<4xi32>
  %m7 = tg.constant dense<-7> : tensor<4xi32>
  %two = tg.constant dense<2> : tensor<4xi32>
  %0 = tg.add %max, %one : tensor<4xi32>
  %1 = tg.div %m7, %two : tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}

// -----

// exp(0) = 1, computed by the reference kernel.
// CHECK-LABEL: func.func @fold_exp_splat
// CHECK-NEXT: %[[C:.+]] = tg.constant dense<1.000000e+00> : tensor<8xf16>
// CHECK-NEXT: return %[[C]] : tensor<8xf16>
func.func @fold_exp_splat() -> tensor<8xf16> {
  %z = tg.constant dense<0.0> : tensor<8xf16>
  %0 = tg.exp %z : tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

// Chains fold all the way: relu(neg(sqrt(4))) = relu(-2) = 0.
// CHECK-LABEL: func.func @fold_chain
// CHECK-NEXT: %[[C:.+]] = tg.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-NEXT: return %[[C]] : tensor<3xf32>
func.func @fold_chain() -> tensor<3xf32> {
  %four = tg.constant dense<4.0> : tensor<3xf32>
  %0 = tg.sqrt %four : tensor<3xf32>
  %1 = tg.neg %0 : tensor<3xf32>
  %2 = tg.relu %1 : tensor<3xf32>
  return %2 : tensor<3xf32>
}

// -----

// f32 -> bf16 rounds to nearest, ties to even: 1 + 3/512 rounds up to 1 + 1/128 (truncation
// would give 1.0), and the tie 1 + 1/256 goes to the even 1.0 (rounding half away from zero
// would give 1 + 1/128).
// CHECK-LABEL: func.func @fold_cast_to_bf16
// CHECK-DAG: %[[UP:.+]] = tg.constant dense<1.007810e+00> : tensor<4xbf16>
// CHECK-DAG: %[[TIE:.+]] = tg.constant dense<1.000000e+00> : tensor<4xbf16>
// CHECK: return %[[UP]], %[[TIE]] : tensor<4xbf16>, tensor<4xbf16>
func.func @fold_cast_to_bf16() -> (tensor<4xbf16>, tensor<4xbf16>) {
  %a = tg.constant dense<1.005859375> : tensor<4xf32>
  %b = tg.constant dense<1.00390625> : tensor<4xf32>
  %0 = tg.cast %a : tensor<4xf32> to tensor<4xbf16>
  %1 = tg.cast %b : tensor<4xf32> to tensor<4xbf16>
  return %0, %1 : tensor<4xbf16>, tensor<4xbf16>
}

// -----

// float -> i32 truncates toward zero and saturates; anything -> i1 is x != 0.
// CHECK-LABEL: func.func @fold_cast_to_int
// CHECK-DAG: %[[T:.+]] = tg.constant dense<-2> : tensor<4xi32>
// CHECK-DAG: %[[S:.+]] = tg.constant dense<2147483647> : tensor<4xi32>
// CHECK-DAG: %[[B:.+]] = tg.constant dense<true> : tensor<4xi1>
// CHECK-DAG: %[[F:.+]] = tg.constant dense<-1.000000e+00> : tensor<4xf32>
// CHECK: return %[[T]], %[[S]], %[[B]], %[[F]] :
func.func @fold_cast_to_int() -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi1>, tensor<4xf32>) {
  %a = tg.constant dense<-2.75> : tensor<4xf32>
  %big = tg.constant dense<1.0e+10> : tensor<4xf32>
  %half = tg.constant dense<0.5> : tensor<4xf32>
  %m1 = tg.constant dense<-1> : tensor<4xi32>
  %0 = tg.cast %a : tensor<4xf32> to tensor<4xi32>
  %1 = tg.cast %big : tensor<4xf32> to tensor<4xi32>
  %2 = tg.cast %half : tensor<4xf32> to tensor<4xi1>
  %3 = tg.cast %m1 : tensor<4xi32> to tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<4xi1>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @fold_cmp_splats
// CHECK-DAG: %[[T:.+]] = tg.constant dense<true> : tensor<2x2xi1>
// CHECK-DAG: %[[F:.+]] = tg.constant dense<false> : tensor<2x2xi1>
// CHECK: return %[[T]], %[[F]], %[[T]] : tensor<2x2xi1>, tensor<2x2xi1>, tensor<2x2xi1>
func.func @fold_cmp_splats() -> (tensor<2x2xi1>, tensor<2x2xi1>, tensor<2x2xi1>) {
  %a = tg.constant dense<1.0> : tensor<2x2xf32>
  %b = tg.constant dense<2.0> : tensor<2x2xf32>
  %0 = tg.cmp lt, %a, %b : tensor<2x2xf32>
  %1 = tg.cmp ge, %a, %b : tensor<2x2xf32>
  %2 = tg.cmp ne, %a, %b : tensor<2x2xf32>
  return %0, %1, %2 : tensor<2x2xi1>, tensor<2x2xi1>, tensor<2x2xi1>
}

// -----

// Comparisons with NaN are false, except ne.
// CHECK-LABEL: func.func @fold_cmp_nan
// CHECK-DAG: %[[T:.+]] = tg.constant dense<true> : tensor<4xi1>
// CHECK-DAG: %[[F:.+]] = tg.constant dense<false> : tensor<4xi1>
// CHECK: return %[[F]], %[[T]] : tensor<4xi1>, tensor<4xi1>
func.func @fold_cmp_nan() -> (tensor<4xi1>, tensor<4xi1>) {
  %nan = tg.constant dense<0x7FC00000> : tensor<4xf32>
  %0 = tg.cmp eq, %nan, %nan : tensor<4xf32>
  %1 = tg.cmp ne, %nan, %nan : tensor<4xf32>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}

// -----

// A non-splat operand is not folded.
// CHECK-LABEL: func.func @no_fold_non_splat
// CHECK: %[[A:.+]] = tg.constant dense<[1.000000e+00, 4.000000e+00]> : tensor<2xf32>
// CHECK: %[[S:.+]] = tg.sqrt %[[A]] : tensor<2xf32>
// CHECK: return %[[S]]
func.func @no_fold_non_splat() -> tensor<2xf32> {
  %a = tg.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %0 = tg.sqrt %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// tg.select
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @select_splat_condition
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>, %[[Y:.+]]: tensor<4xf32>)
// CHECK-NOT: tg.select
// CHECK: return %[[X]], %[[Y]] : tensor<4xf32>, tensor<4xf32>
func.func @select_splat_condition(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %t = tg.constant dense<true> : tensor<4xi1>
  %f = tg.constant dense<false> : tensor<4xi1>
  %0 = tg.select %t, %x, %y : tensor<4xi1>, tensor<4xf32>
  %1 = tg.select %f, %x, %y : tensor<4xi1>, tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @select_same_branches
// CHECK-SAME: (%[[C:.+]]: tensor<4xi1>, %[[X:.+]]: tensor<4xi32>)
// CHECK-NOT: tg.select
// CHECK: return %[[X]] : tensor<4xi32>
func.func @select_same_branches(%c: tensor<4xi1>, %x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = tg.select %c, %x, %x : tensor<4xi1>, tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// A condition that is not a splat stays.
// CHECK-LABEL: func.func @select_mixed_condition
// CHECK-SAME: (%[[X:.+]]: tensor<2xf32>, %[[Y:.+]]: tensor<2xf32>)
// CHECK: %[[C:.+]] = tg.constant dense<[true, false]> : tensor<2xi1>
// CHECK: %[[S:.+]] = tg.select %[[C]], %[[X]], %[[Y]] : tensor<2xi1>, tensor<2xf32>
// CHECK: return %[[S]]
func.func @select_mixed_condition(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %c = tg.constant dense<[true, false]> : tensor<2xi1>
  %0 = tg.select %c, %x, %y : tensor<2xi1>, tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// tg.broadcast
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @broadcast_identity
// CHECK-SAME: (%[[X:.+]]: tensor<3x4xf32>)
// CHECK-NOT: tg.broadcast
// CHECK: return %[[X]] : tensor<3x4xf32>
func.func @broadcast_identity(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = tg.broadcast %x dims = [0, 1] : tensor<3x4xf32> to tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_splat
// CHECK-NEXT: %[[C:.+]] = tg.constant dense<2.500000e+00> : tensor<2x3x4xbf16>
// CHECK-NEXT: return %[[C]] : tensor<2x3x4xbf16>
func.func @broadcast_splat() -> tensor<2x3x4xbf16> {
  %c = tg.constant dense<2.5> : tensor<3x1xbf16>
  %0 = tg.broadcast %c dims = [1, 2] : tensor<3x1xbf16> to tensor<2x3x4xbf16>
  return %0 : tensor<2x3x4xbf16>
}

// -----

// CHECK-LABEL: func.func @broadcast_scalar_splat
// CHECK-NEXT: %[[C:.+]] = tg.constant dense<7> : tensor<5x5xi32>
// CHECK-NEXT: return %[[C]] : tensor<5x5xi32>
func.func @broadcast_scalar_splat() -> tensor<5x5xi32> {
  %c = tg.constant dense<7> : tensor<i32>
  %0 = tg.broadcast %c dims = [] : tensor<i32> to tensor<5x5xi32>
  return %0 : tensor<5x5xi32>
}

// -----

// A non-splat constant is not materialised at the larger shape.
// CHECK-LABEL: func.func @broadcast_dense_kept
// CHECK: %[[C:.+]] = tg.constant dense<[1, 2]> : tensor<2xi32>
// CHECK: %[[B:.+]] = tg.broadcast %[[C]] dims = [1] : tensor<2xi32> to tensor<3x2xi32>
// CHECK: return %[[B]]
func.func @broadcast_dense_kept() -> tensor<3x2xi32> {
  %c = tg.constant dense<[1, 2]> : tensor<2xi32>
  %0 = tg.broadcast %c dims = [1] : tensor<2xi32> to tensor<3x2xi32>
  return %0 : tensor<3x2xi32>
}

// -----

// [4] -> [3, 4] (dims [1]) -> [2, 3, 4] (dims [1, 2]) is [4] -> [2, 3, 4] with dims [2].
// CHECK-LABEL: func.func @broadcast_of_broadcast
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK-NEXT: %[[B:.+]] = tg.broadcast %[[X]] dims = [2] : tensor<4xf32> to tensor<2x3x4xf32>
// CHECK-NEXT: return %[[B]] : tensor<2x3x4xf32>
func.func @broadcast_of_broadcast(%x: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %0 = tg.broadcast %x dims = [1] : tensor<4xf32> to tensor<3x4xf32>
  %1 = tg.broadcast %0 dims = [1, 2] : tensor<3x4xf32> to tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// The outer map is not the identity on the inner result: [3, 1] -> [3, 5] (dims [0, 1]) ->
// [3, 2, 5] (dims [0, 2]) is [3, 1] -> [3, 2, 5] with dims [0, 2].
// CHECK-LABEL: func.func @broadcast_of_broadcast_middle
// CHECK-SAME: (%[[X:.+]]: tensor<3x1xi32>)
// CHECK-NEXT: %[[B:.+]] = tg.broadcast %[[X]] dims = [0, 2] : tensor<3x1xi32> to tensor<3x2x5xi32>
// CHECK-NEXT: return %[[B]] : tensor<3x2x5xi32>
func.func @broadcast_of_broadcast_middle(%x: tensor<3x1xi32>) -> tensor<3x2x5xi32> {
  %0 = tg.broadcast %x dims = [0, 1] : tensor<3x1xi32> to tensor<3x5xi32>
  %1 = tg.broadcast %0 dims = [0, 2] : tensor<3x5xi32> to tensor<3x2x5xi32>
  return %1 : tensor<3x2x5xi32>
}

// -----

//===----------------------------------------------------------------------===//
// tg.reshape
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reshape_identity
// CHECK-SAME: (%[[X:.+]]: tensor<2x6xf16>)
// CHECK-NOT: tg.reshape
// CHECK: return %[[X]] : tensor<2x6xf16>
func.func @reshape_identity(%x: tensor<2x6xf16>) -> tensor<2x6xf16> {
  %0 = tg.reshape %x : tensor<2x6xf16> to tensor<2x6xf16>
  return %0 : tensor<2x6xf16>
}

// -----

// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-SAME: (%[[X:.+]]: tensor<12xf32>)
// CHECK-NEXT: %[[R:.+]] = tg.reshape %[[X]] : tensor<12xf32> to tensor<2x6xf32>
// CHECK-NEXT: return %[[R]] : tensor<2x6xf32>
func.func @reshape_of_reshape(%x: tensor<12xf32>) -> tensor<2x6xf32> {
  %0 = tg.reshape %x : tensor<12xf32> to tensor<3x4xf32>
  %1 = tg.reshape %0 : tensor<3x4xf32> to tensor<2x6xf32>
  return %1 : tensor<2x6xf32>
}

// -----

// Back to the original shape: nothing is left.
// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-SAME: (%[[X:.+]]: tensor<12xf32>)
// CHECK-NEXT: return %[[X]] : tensor<12xf32>
func.func @reshape_round_trip(%x: tensor<12xf32>) -> tensor<12xf32> {
  %0 = tg.reshape %x : tensor<12xf32> to tensor<3x4xf32>
  %1 = tg.reshape %0 : tensor<3x4xf32> to tensor<12xf32>
  return %1 : tensor<12xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_dense_constant
// CHECK-NEXT: %[[C:.+]] = tg.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
// CHECK-NEXT: return %[[C]] : tensor<2x3xi32>
func.func @reshape_dense_constant() -> tensor<2x3xi32> {
  %c = tg.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  %0 = tg.reshape %c : tensor<6xi32> to tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

//===----------------------------------------------------------------------===//
// tg.transpose
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @transpose_identity
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK-NOT: tg.transpose
// CHECK: return %[[X]] : tensor<2x3x4xf32>
func.func @transpose_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = tg.transpose %x perm = [0, 1, 2] : tensor<2x3x4xf32> to tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// A transpose that moves only dims of extent 1 keeps the elements in order: a reshape (a
// decode step's [1, H, d] -> [H, 1, d]). One that reorders two dims of extent > 1 stays.
// CHECK-LABEL: func.func @transpose_of_unit_dims
// CHECK-SAME: (%[[X:.+]]: tensor<1x16x128xf32>, %[[Y:.+]]: tensor<2x1x3xf32>)
// CHECK-NEXT: %[[R:.+]] = tg.reshape %[[X]] : tensor<1x16x128xf32> to tensor<16x1x128xf32>
// CHECK-NEXT: %[[T:.+]] = tg.transpose %[[Y]] perm = [2, 1, 0] : tensor<2x1x3xf32> to tensor<3x1x2xf32>
// CHECK-NEXT: return %[[R]], %[[T]]
func.func @transpose_of_unit_dims(%x: tensor<1x16x128xf32>, %y: tensor<2x1x3xf32>) -> (tensor<16x1x128xf32>, tensor<3x1x2xf32>) {
  %0 = tg.transpose %x perm = [1, 0, 2] : tensor<1x16x128xf32> to tensor<16x1x128xf32>
  %1 = tg.transpose %y perm = [2, 1, 0] : tensor<2x1x3xf32> to tensor<3x1x2xf32>
  return %0, %1 : tensor<16x1x128xf32>, tensor<3x1x2xf32>
}

// -----

// A permutation of equal extents has the same type but is not the identity.
// CHECK-LABEL: func.func @transpose_square_kept
// CHECK-SAME: (%[[X:.+]]: tensor<4x4xf32>)
// CHECK: %[[T:.+]] = tg.transpose %[[X]] perm = [1, 0] : tensor<4x4xf32> to tensor<4x4xf32>
// CHECK: return %[[T]]
func.func @transpose_square_kept(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = tg.transpose %x perm = [1, 0] : tensor<4x4xf32> to tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_of_transpose_identity
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK-NOT: tg.transpose
// CHECK: return %[[X]] : tensor<2x3x4xf32>
func.func @transpose_of_transpose_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = tg.transpose %x perm = [2, 0, 1] : tensor<2x3x4xf32> to tensor<4x2x3xf32>
  %1 = tg.transpose %0 perm = [1, 2, 0] : tensor<4x2x3xf32> to tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// [2, 3, 4] -perm [1, 0, 2]-> [3, 2, 4] -perm [2, 1, 0]-> [4, 2, 3]: one transpose with
// perm [2, 0, 1] (result dim i is operand dim inner[outer[i]]).
// CHECK-LABEL: func.func @transpose_of_transpose
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.+]] = tg.transpose %[[X]] perm = [2, 0, 1] : tensor<2x3x4xf32> to tensor<4x2x3xf32>
// CHECK-NEXT: return %[[T]] : tensor<4x2x3xf32>
func.func @transpose_of_transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = tg.transpose %x perm = [1, 0, 2] : tensor<2x3x4xf32> to tensor<3x2x4xf32>
  %1 = tg.transpose %0 perm = [2, 1, 0] : tensor<3x2x4xf32> to tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// The inner transpose has another use: it stays, the outer one reads %x directly.
// CHECK-LABEL: func.func @transpose_of_transpose_shared
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK-DAG: %[[T:.+]] = tg.transpose %[[X]] perm = [1, 0] : tensor<2x3xf32> to tensor<3x2xf32>
// CHECK-DAG: %[[E:.+]] = tg.exp %[[X]] : tensor<2x3xf32>
// CHECK: return %[[T]], %[[E]] : tensor<3x2xf32>, tensor<2x3xf32>
func.func @transpose_of_transpose_shared(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %0 = tg.transpose %x perm = [1, 0] : tensor<2x3xf32> to tensor<3x2xf32>
  %1 = tg.transpose %0 perm = [1, 0] : tensor<3x2xf32> to tensor<2x3xf32>
  %2 = tg.exp %1 : tensor<2x3xf32>
  return %0, %2 : tensor<3x2xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_splat
// CHECK-NEXT: %[[C:.+]] = tg.constant dense<-1.000000e+00> : tensor<4x2xf16>
// CHECK-NEXT: return %[[C]] : tensor<4x2xf16>
func.func @transpose_splat() -> tensor<4x2xf16> {
  %c = tg.constant dense<-1.0> : tensor<2x4xf16>
  %0 = tg.transpose %c perm = [1, 0] : tensor<2x4xf16> to tensor<4x2xf16>
  return %0 : tensor<4x2xf16>
}

// -----

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reduce_no_axes
// CHECK-SAME: (%[[X:.+]]: tensor<3x4xf32>, %[[I:.+]]: tensor<5xi32>)
// CHECK-NOT: tg.reduce
// CHECK: return %[[X]], %[[I]], %[[X]] : tensor<3x4xf32>, tensor<5xi32>, tensor<3x4xf32>
func.func @reduce_no_axes(%x: tensor<3x4xf32>, %i: tensor<5xi32>) -> (tensor<3x4xf32>, tensor<5xi32>, tensor<3x4xf32>) {
  %0 = tg.reduce_sum %x axes = [] : tensor<3x4xf32> to tensor<3x4xf32>
  %1 = tg.reduce_max %i axes = [] keep_dims : tensor<5xi32> to tensor<5xi32>
  %2 = tg.reduce_mean %x axes = [] : tensor<3x4xf32> to tensor<3x4xf32>
  return %0, %1, %2 : tensor<3x4xf32>, tensor<5xi32>, tensor<3x4xf32>
}

// -----

// Reducing a unit dim with keep_dims does not change the type, but it is not folded by the
// empty-axes rule either.
// CHECK-LABEL: func.func @reduce_unit_dim_kept
// CHECK-SAME: (%[[X:.+]]: tensor<3x1xf32>)
// CHECK: %[[R:.+]] = tg.reduce_sum %[[X]] axes = [1] keep_dims : tensor<3x1xf32> to tensor<3x1xf32>
// CHECK: return %[[R]]
func.func @reduce_unit_dim_kept(%x: tensor<3x1xf32>) -> tensor<3x1xf32> {
  %0 = tg.reduce_sum %x axes = [1] keep_dims : tensor<3x1xf32> to tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

//===----------------------------------------------------------------------===//
// tg.matmul absorbs transposes of the last two dims
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul_absorb_transpose_b
// CHECK-SAME: (%[[X:.+]]: tensor<8x64xbf16>, %[[W:.+]]: tensor<32x64xbf16>)
// CHECK-NOT: tg.transpose
// CHECK: %[[M:.+]] = tg.matmul %[[X]], %[[W]] transpose_b : tensor<8x64xbf16>, tensor<32x64xbf16> -> tensor<8x32xbf16>
// CHECK-NEXT: return %[[M]]
func.func @matmul_absorb_transpose_b(%x: tensor<8x64xbf16>, %w: tensor<32x64xbf16>) -> tensor<8x32xbf16> {
  %wt = tg.transpose %w perm = [1, 0] : tensor<32x64xbf16> to tensor<64x32xbf16>
  %0 = tg.matmul %x, %wt : tensor<8x64xbf16>, tensor<64x32xbf16> -> tensor<8x32xbf16>
  return %0 : tensor<8x32xbf16>
}

// -----

// CHECK-LABEL: func.func @matmul_absorb_transpose_a
// CHECK-SAME: (%[[A:.+]]: tensor<64x8xf32>, %[[B:.+]]: tensor<64x32xf32>)
// CHECK-NOT: tg.transpose
// CHECK: %[[M:.+]] = tg.matmul %[[A]], %[[B]] transpose_a : tensor<64x8xf32>, tensor<64x32xf32> -> tensor<8x32xf32>
// CHECK-NEXT: return %[[M]]
func.func @matmul_absorb_transpose_a(%a: tensor<64x8xf32>, %b: tensor<64x32xf32>) -> tensor<8x32xf32> {
  %at = tg.transpose %a perm = [1, 0] : tensor<64x8xf32> to tensor<8x64xf32>
  %0 = tg.matmul %at, %b : tensor<8x64xf32>, tensor<64x32xf32> -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// Batched, both sides at once: the batch dims stay in place.
// CHECK-LABEL: func.func @matmul_absorb_batched
// CHECK-SAME: (%[[Q:.+]]: tensor<2x4x16x8xf16>, %[[K:.+]]: tensor<2x4x8x16xf16>)
// CHECK-NOT: tg.transpose
// CHECK: %[[M:.+]] = tg.matmul %[[Q]], %[[K]] transpose_a transpose_b : tensor<2x4x16x8xf16>, tensor<2x4x8x16xf16> -> tensor<2x4x8x8xf16>
// CHECK-NEXT: return %[[M]]
func.func @matmul_absorb_batched(%q: tensor<2x4x16x8xf16>, %k: tensor<2x4x8x16xf16>) -> tensor<2x4x8x8xf16> {
  %qt = tg.transpose %q perm = [0, 1, 3, 2] : tensor<2x4x16x8xf16> to tensor<2x4x8x16xf16>
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<2x4x8x16xf16> to tensor<2x4x16x8xf16>
  %0 = tg.matmul %qt, %kt : tensor<2x4x8x16xf16>, tensor<2x4x16x8xf16> -> tensor<2x4x8x8xf16>
  return %0 : tensor<2x4x8x8xf16>
}

// -----

// A transpose of an operand already marked transposed cancels the flag.
// CHECK-LABEL: func.func @matmul_absorb_cancels_flag
// CHECK-SAME: (%[[A:.+]]: tensor<8x64xf32>, %[[B:.+]]: tensor<64x32xf32>)
// CHECK-NOT: tg.transpose
// CHECK: %[[M:.+]] = tg.matmul %[[A]], %[[B]] : tensor<8x64xf32>, tensor<64x32xf32> -> tensor<8x32xf32>
// CHECK-NEXT: return %[[M]]
func.func @matmul_absorb_cancels_flag(%a: tensor<8x64xf32>, %b: tensor<64x32xf32>) -> tensor<8x32xf32> {
  %at = tg.transpose %a perm = [1, 0] : tensor<8x64xf32> to tensor<64x8xf32>
  %0 = tg.matmul %at, %b transpose_a : tensor<64x8xf32>, tensor<64x32xf32> -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// A rank-2 weight shared by a batch: its transpose is absorbed too.
// CHECK-LABEL: func.func @matmul_absorb_shared_weight
// CHECK-SAME: (%[[X:.+]]: tensor<3x5x16xf32>, %[[W:.+]]: tensor<7x16xf32>)
// CHECK: %[[M:.+]] = tg.matmul %[[X]], %[[W]] transpose_b : tensor<3x5x16xf32>, tensor<7x16xf32> -> tensor<3x5x7xf32>
// CHECK-NEXT: return %[[M]]
func.func @matmul_absorb_shared_weight(%x: tensor<3x5x16xf32>, %w: tensor<7x16xf32>) -> tensor<3x5x7xf32> {
  %wt = tg.transpose %w perm = [1, 0] : tensor<7x16xf32> to tensor<16x7xf32>
  %0 = tg.matmul %x, %wt : tensor<3x5x16xf32>, tensor<16x7xf32> -> tensor<3x5x7xf32>
  return %0 : tensor<3x5x7xf32>
}

// -----

// A transpose that moves batch dims is not a transpose of the matrices: kept.
// CHECK-LABEL: func.func @matmul_keeps_batch_transpose
// CHECK-SAME: (%[[A:.+]]: tensor<4x2x8x16xf32>, %[[B:.+]]: tensor<2x4x16x8xf32>)
// CHECK: %[[T:.+]] = tg.transpose %[[A]] perm = [1, 0, 2, 3] : tensor<4x2x8x16xf32> to tensor<2x4x8x16xf32>
// CHECK: %[[M:.+]] = tg.matmul %[[T]], %[[B]] : tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x8x8xf32>
// CHECK: return %[[M]]
func.func @matmul_keeps_batch_transpose(%a: tensor<4x2x8x16xf32>, %b: tensor<2x4x16x8xf32>) -> tensor<2x4x8x8xf32> {
  %at = tg.transpose %a perm = [1, 0, 2, 3] : tensor<4x2x8x16xf32> to tensor<2x4x8x16xf32>
  %0 = tg.matmul %at, %b : tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}

// -----

// Nor one that swaps the last two dims together with batch dims.
// CHECK-LABEL: func.func @matmul_keeps_mixed_transpose
// CHECK-SAME: (%[[A:.+]]: tensor<16x2x8xf32>, %[[B:.+]]: tensor<2x16x4xf32>)
// CHECK: %[[T:.+]] = tg.transpose %[[A]] perm = [1, 2, 0] : tensor<16x2x8xf32> to tensor<2x8x16xf32>
// CHECK: %[[M:.+]] = tg.matmul %[[T]], %[[B]] : tensor<2x8x16xf32>, tensor<2x16x4xf32> -> tensor<2x8x4xf32>
// CHECK: return %[[M]]
func.func @matmul_keeps_mixed_transpose(%a: tensor<16x2x8xf32>, %b: tensor<2x16x4xf32>) -> tensor<2x8x4xf32> {
  %at = tg.transpose %a perm = [1, 2, 0] : tensor<16x2x8xf32> to tensor<2x8x16xf32>
  %0 = tg.matmul %at, %b : tensor<2x8x16xf32>, tensor<2x16x4xf32> -> tensor<2x8x4xf32>
  return %0 : tensor<2x8x4xf32>
}

// -----

// A slice of a slice is one window of the root; a slice of everything is its input.
// CHECK-LABEL: func.func @slice_of_slice
// CHECK-SAME: (%[[X:.+]]: tensor<10x20xf32>)
// CHECK: %[[S:.+]] = tg.slice %[[X]] starts = [3, 2] limits = [8, 15] steps = [2, 6] : tensor<10x20xf32> to tensor<3x3xf32>
// CHECK-NEXT: return %[[S]], %[[X]]
func.func @slice_of_slice(%x: tensor<10x20xf32>) -> (tensor<3x3xf32>, tensor<10x20xf32>) {
  %0 = tg.slice %x starts = [1, 2] limits = [10, 20] steps = [1, 2] : tensor<10x20xf32> to tensor<9x9xf32>
  %1 = tg.slice %0 starts = [2, 0] limits = [7, 7] steps = [2, 3] : tensor<9x9xf32> to tensor<3x3xf32>
  %2 = tg.slice %x starts = [0, 0] limits = [10, 20] steps = [1, 1] : tensor<10x20xf32> to tensor<10x20xf32>
  return %1, %2 : tensor<3x3xf32>, tensor<10x20xf32>
}

// -----

// Keys split into heads: k [B, S, H, D] transposed to [B, H, D, S] (the heads split and the
// k^T composed into one transpose) is read as [B, H, S, D] {transpose_b}: its rows keep the
// input's last dim (attention's keys stored [keys, dim]), and the pattern does not fire again.
// CHECK-LABEL: func.func @matmul_keys_split_into_heads
// CHECK-SAME: (%[[Q:.+]]: tensor<2x4x8x16xf32>, %[[K:.+]]: tensor<2x8x4x16xf32>)
// CHECK: %[[T:.+]] = tg.transpose %[[K]] perm = [0, 2, 1, 3] : tensor<2x8x4x16xf32> to tensor<2x4x8x16xf32>
// CHECK: %[[M:.+]] = tg.matmul %[[Q]], %[[T]] transpose_b : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x8xf32>
// CHECK: return %[[M]]
func.func @matmul_keys_split_into_heads(%q: tensor<2x4x8x16xf32>, %k: tensor<2x8x4x16xf32>) -> tensor<2x4x8x8xf32> {
  %kt = tg.transpose %k perm = [0, 2, 3, 1] : tensor<2x8x4x16xf32> to tensor<2x4x16x8xf32>
  %0 = tg.matmul %q, %kt : tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}
