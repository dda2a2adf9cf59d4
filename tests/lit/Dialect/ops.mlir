// RUN: tg-opt %s | tg-opt | FileCheck %s
//
// Every tg op, every element type (f32, f16, bf16, i32, i1) and every attribute spelling
// survives a print/parse round trip in its custom form.

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<4xf32>, tensor<2x2xf16>, tensor<3xbf16>, tensor<2xi32>, tensor<4xi1>, tensor<f32>) {
  // CHECK: tg.constant dense<1.500000e+00> : tensor<4xf32>
  %0 = tg.constant dense<1.5> : tensor<4xf32>
  // CHECK: tg.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf16>
  %1 = tg.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf16>
  // CHECK: tg.constant dense<-2.500000e-01> : tensor<3xbf16>
  %2 = tg.constant dense<-0.25> : tensor<3xbf16>
  // CHECK: tg.constant dense<[7, -3]> : tensor<2xi32>
  %3 = tg.constant dense<[7, -3]> : tensor<2xi32>
  // CHECK: tg.constant dense<[true, false, false, true]> : tensor<4xi1>
  %4 = tg.constant dense<[true, false, false, true]> : tensor<4xi1>
  // CHECK: tg.constant dense<0.000000e+00> : tensor<f32>
  %5 = tg.constant dense<0.0> : tensor<f32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<2x2xf16>, tensor<3xbf16>, tensor<2xi32>, tensor<4xi1>, tensor<f32>
}

// CHECK-LABEL: func.func @unary_float
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>, %[[H:.+]]: tensor<16xf16>, %[[B:.+]]: tensor<2x3xbf16>)
func.func @unary_float(%x: tensor<4x8xf32>, %h: tensor<16xf16>, %b: tensor<2x3xbf16>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<16xf16>, tensor<16xf16>, tensor<2x3xbf16>, tensor<2x3xbf16>, tensor<4x8xf32>) {
  // CHECK: %[[EXP:.+]] = tg.exp %[[X]] : tensor<4x8xf32>
  %0 = tg.exp %x : tensor<4x8xf32>
  // CHECK: %[[LOG:.+]] = tg.log %[[EXP]] : tensor<4x8xf32>
  %1 = tg.log %0 : tensor<4x8xf32>
  // CHECK: %[[TANH:.+]] = tg.tanh %[[H]] : tensor<16xf16>
  %2 = tg.tanh %h : tensor<16xf16>
  // CHECK: %[[SIG:.+]] = tg.sigmoid %[[TANH]] : tensor<16xf16>
  %3 = tg.sigmoid %2 : tensor<16xf16>
  // CHECK: %[[SQRT:.+]] = tg.sqrt %[[B]] : tensor<2x3xbf16>
  %4 = tg.sqrt %b : tensor<2x3xbf16>
  // CHECK: %[[RSQRT:.+]] = tg.rsqrt %[[SQRT]] : tensor<2x3xbf16>
  %5 = tg.rsqrt %4 : tensor<2x3xbf16>
  // CHECK: %[[ERF:.+]] = tg.gelu %[[X]] approximate = erf : tensor<4x8xf32>
  %6 = tg.gelu %x approximate = erf : tensor<4x8xf32>
  // CHECK: %[[GTANH:.+]] = tg.gelu %[[ERF]] approximate = tanh : tensor<4x8xf32>
  %7 = tg.gelu %6 approximate = tanh : tensor<4x8xf32>
  // CHECK: return %[[EXP]], %[[LOG]], %[[TANH]], %[[SIG]], %[[SQRT]], %[[RSQRT]], %[[GTANH]]
  return %0, %1, %2, %3, %4, %5, %7 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<16xf16>, tensor<16xf16>, tensor<2x3xbf16>, tensor<2x3xbf16>, tensor<4x8xf32>
}

// neg, abs and relu also take i32.
// CHECK-LABEL: func.func @unary_numeric
// CHECK-SAME: (%[[X:.+]]: tensor<8xf32>, %[[I:.+]]: tensor<8xi32>)
func.func @unary_numeric(%x: tensor<8xf32>, %i: tensor<8xi32>) -> (tensor<8xf32>, tensor<8xi32>) {
  // CHECK: %[[NEG:.+]] = tg.neg %[[X]] : tensor<8xf32>
  %0 = tg.neg %x : tensor<8xf32>
  // CHECK: %[[ABS:.+]] = tg.abs %[[NEG]] : tensor<8xf32>
  %1 = tg.abs %0 : tensor<8xf32>
  // CHECK: %[[RELU:.+]] = tg.relu %[[ABS]] : tensor<8xf32>
  %2 = tg.relu %1 : tensor<8xf32>
  // CHECK: %[[INEG:.+]] = tg.neg %[[I]] : tensor<8xi32>
  %3 = tg.neg %i : tensor<8xi32>
  // CHECK: %[[IABS:.+]] = tg.abs %[[INEG]] : tensor<8xi32>
  %4 = tg.abs %3 : tensor<8xi32>
  // CHECK: %[[IRELU:.+]] = tg.relu %[[IABS]] : tensor<8xi32>
  %5 = tg.relu %4 : tensor<8xi32>
  // CHECK: return %[[RELU]], %[[IRELU]]
  return %2, %5 : tensor<8xf32>, tensor<8xi32>
}

// The functions a decoder needs (rotary embeddings, SwiGLU, positions).
// CHECK-LABEL: func.func @unary_more
func.func @unary_more(%x: tensor<8xf32>, %b: tensor<8xbf16>, %i: tensor<8xi32>)
    -> (tensor<8xf32>, tensor<8xbf16>, tensor<8xi32>) {
  // CHECK: tg.sin %{{.+}} : tensor<8xf32>
  %0 = tg.sin %x : tensor<8xf32>
  // CHECK: tg.cos %{{.+}} : tensor<8xf32>
  %1 = tg.cos %0 : tensor<8xf32>
  // CHECK: tg.erf %{{.+}} : tensor<8xf32>
  %2 = tg.erf %1 : tensor<8xf32>
  // CHECK: tg.exp2 %{{.+}} : tensor<8xf32>
  %3 = tg.exp2 %2 : tensor<8xf32>
  // CHECK: tg.log2 %{{.+}} : tensor<8xf32>
  %4 = tg.log2 %3 : tensor<8xf32>
  // CHECK: tg.floor %{{.+}} : tensor<8xf32>
  %5 = tg.floor %4 : tensor<8xf32>
  // CHECK: tg.ceil %{{.+}} : tensor<8xf32>
  %6 = tg.ceil %5 : tensor<8xf32>
  // CHECK: tg.round %{{.+}} : tensor<8xf32>
  %7 = tg.round %6 : tensor<8xf32>
  // CHECK: tg.sign %{{.+}} : tensor<8xf32>
  %8 = tg.sign %7 : tensor<8xf32>
  // CHECK: tg.clamp %{{.+}}, %{{.+}}, %{{.+}} : tensor<8xf32>
  %9 = tg.clamp %8, %x, %0 : tensor<8xf32>
  // CHECK: tg.silu %{{.+}} : tensor<8xbf16>
  %10 = tg.silu %b : tensor<8xbf16>
  // CHECK: tg.sign %{{.+}} : tensor<8xi32>
  %11 = tg.sign %i : tensor<8xi32>
  // CHECK: tg.clamp %{{.+}}, %{{.+}}, %{{.+}} : tensor<8xi32>
  %12 = tg.clamp %11, %i, %i : tensor<8xi32>
  return %9, %10, %12 : tensor<8xf32>, tensor<8xbf16>, tensor<8xi32>
}

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>, %[[Y:.+]]: tensor<4x8xf32>, %[[I:.+]]: tensor<3xi32>, %[[J:.+]]: tensor<3xi32>, %[[H:.+]]: tensor<5xf16>)
func.func @binary(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %i: tensor<3xi32>, %j: tensor<3xi32>, %h: tensor<5xf16>)
    -> (tensor<4x8xf32>, tensor<3xi32>, tensor<5xf16>) {
  // CHECK: %[[ADD:.+]] = tg.add %[[X]], %[[Y]] : tensor<4x8xf32>
  %0 = tg.add %x, %y : tensor<4x8xf32>
  // CHECK: %[[SUB:.+]] = tg.sub %[[ADD]], %[[Y]] : tensor<4x8xf32>
  %1 = tg.sub %0, %y : tensor<4x8xf32>
  // CHECK: %[[MUL:.+]] = tg.mul %[[SUB]], %[[X]] : tensor<4x8xf32>
  %2 = tg.mul %1, %x : tensor<4x8xf32>
  // CHECK: %[[DIV:.+]] = tg.div %[[MUL]], %[[Y]] : tensor<4x8xf32>
  %3 = tg.div %2, %y : tensor<4x8xf32>
  // CHECK: %[[POW:.+]] = tg.pow %[[DIV]], %[[X]] : tensor<4x8xf32>
  %4 = tg.pow %3, %x : tensor<4x8xf32>
  // CHECK: %[[MAX:.+]] = tg.maximum %[[POW]], %[[Y]] : tensor<4x8xf32>
  %5 = tg.maximum %4, %y : tensor<4x8xf32>
  // CHECK: %[[MIN:.+]] = tg.minimum %[[MAX]], %[[X]] : tensor<4x8xf32>
  %6 = tg.minimum %5, %x : tensor<4x8xf32>
  // CHECK: %[[IADD:.+]] = tg.add %[[I]], %[[J]] : tensor<3xi32>
  %7 = tg.add %i, %j : tensor<3xi32>
  // CHECK: %[[ISUB:.+]] = tg.sub %[[IADD]], %[[J]] : tensor<3xi32>
  %8 = tg.sub %7, %j : tensor<3xi32>
  // CHECK: %[[IMUL:.+]] = tg.mul %[[ISUB]], %[[I]] : tensor<3xi32>
  %9 = tg.mul %8, %i : tensor<3xi32>
  // CHECK: %[[IDIV:.+]] = tg.div %[[IMUL]], %[[J]] : tensor<3xi32>
  %10 = tg.div %9, %j : tensor<3xi32>
  // CHECK: %[[IMAX:.+]] = tg.maximum %[[IDIV]], %[[I]] : tensor<3xi32>
  %11 = tg.maximum %10, %i : tensor<3xi32>
  // CHECK: %[[IMIN:.+]] = tg.minimum %[[IMAX]], %[[J]] : tensor<3xi32>
  %12 = tg.minimum %11, %j : tensor<3xi32>
  // CHECK: %[[HPOW:.+]] = tg.pow %[[H]], %[[H]] : tensor<5xf16>
  %13 = tg.pow %h, %h : tensor<5xf16>
  // CHECK: return %[[MIN]], %[[IMIN]], %[[HPOW]]
  return %6, %12, %13 : tensor<4x8xf32>, tensor<3xi32>, tensor<5xf16>
}

// Every predicate; the result is an i1 tensor of the operands' shape.
// CHECK-LABEL: func.func @cmp
// CHECK-SAME: (%[[X:.+]]: tensor<16xf32>, %[[Y:.+]]: tensor<16xf32>, %[[I:.+]]: tensor<2x3xi32>, %[[B:.+]]: tensor<4xbf16>, %[[P:.+]]: tensor<4xi1>)
func.func @cmp(%x: tensor<16xf32>, %y: tensor<16xf32>, %i: tensor<2x3xi32>, %b: tensor<4xbf16>, %p: tensor<4xi1>)
    -> (tensor<16xi1>, tensor<16xi1>, tensor<16xi1>, tensor<16xi1>, tensor<2x3xi1>, tensor<4xi1>, tensor<4xi1>) {
  // CHECK: %[[EQ:.+]] = tg.cmp eq, %[[X]], %[[Y]] : tensor<16xf32>
  %0 = tg.cmp eq, %x, %y : tensor<16xf32>
  // CHECK: %[[NE:.+]] = tg.cmp ne, %[[X]], %[[Y]] : tensor<16xf32>
  %1 = tg.cmp ne, %x, %y : tensor<16xf32>
  // CHECK: %[[LT:.+]] = tg.cmp lt, %[[X]], %[[Y]] : tensor<16xf32>
  %2 = tg.cmp lt, %x, %y : tensor<16xf32>
  // CHECK: %[[LE:.+]] = tg.cmp le, %[[Y]], %[[X]] : tensor<16xf32>
  %3 = tg.cmp le, %y, %x : tensor<16xf32>
  // CHECK: %[[GT:.+]] = tg.cmp gt, %[[I]], %[[I]] : tensor<2x3xi32>
  %4 = tg.cmp gt, %i, %i : tensor<2x3xi32>
  // CHECK: %[[GE:.+]] = tg.cmp ge, %[[B]], %[[B]] : tensor<4xbf16>
  %5 = tg.cmp ge, %b, %b : tensor<4xbf16>
  // CHECK: %[[BEQ:.+]] = tg.cmp eq, %[[P]], %[[GE]] : tensor<4xi1>
  %6 = tg.cmp eq, %p, %5 : tensor<4xi1>
  // CHECK: return %[[EQ]], %[[NE]], %[[LT]], %[[LE]], %[[GT]], %[[GE]], %[[BEQ]] : tensor<16xi1>, tensor<16xi1>, tensor<16xi1>, tensor<16xi1>, tensor<2x3xi1>, tensor<4xi1>, tensor<4xi1>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<16xi1>, tensor<16xi1>, tensor<16xi1>, tensor<16xi1>, tensor<2x3xi1>, tensor<4xi1>, tensor<4xi1>
}

// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[C:.+]]: tensor<16xi1>, %[[X:.+]]: tensor<16xf32>, %[[Y:.+]]: tensor<16xf32>, %[[I:.+]]: tensor<16xi32>, %[[P:.+]]: tensor<16xi1>)
func.func @select(%c: tensor<16xi1>, %x: tensor<16xf32>, %y: tensor<16xf32>, %i: tensor<16xi32>, %p: tensor<16xi1>)
    -> (tensor<16xf32>, tensor<16xi32>, tensor<16xi1>) {
  // CHECK: %[[S:.+]] = tg.select %[[C]], %[[X]], %[[Y]] : tensor<16xi1>, tensor<16xf32>
  %0 = tg.select %c, %x, %y : tensor<16xi1>, tensor<16xf32>
  // CHECK: %[[SI:.+]] = tg.select %[[C]], %[[I]], %[[I]] : tensor<16xi1>, tensor<16xi32>
  %1 = tg.select %c, %i, %i : tensor<16xi1>, tensor<16xi32>
  // CHECK: %[[SB:.+]] = tg.select %[[C]], %[[P]], %[[C]] : tensor<16xi1>, tensor<16xi1>
  %2 = tg.select %c, %p, %c : tensor<16xi1>, tensor<16xi1>
  // CHECK: return %[[S]], %[[SI]], %[[SB]]
  return %0, %1, %2 : tensor<16xf32>, tensor<16xi32>, tensor<16xi1>
}

// Casts between every pair of kinds of element type.
// CHECK-LABEL: func.func @cast
// CHECK-SAME: (%[[X:.+]]: tensor<16xf32>)
func.func @cast(%x: tensor<16xf32>) -> (tensor<16xbf16>, tensor<16xf16>, tensor<16xi32>, tensor<16xi1>, tensor<16xf32>) {
  // CHECK: %[[BF:.+]] = tg.cast %[[X]] : tensor<16xf32> to tensor<16xbf16>
  %0 = tg.cast %x : tensor<16xf32> to tensor<16xbf16>
  // CHECK: %[[H:.+]] = tg.cast %[[BF]] : tensor<16xbf16> to tensor<16xf16>
  %1 = tg.cast %0 : tensor<16xbf16> to tensor<16xf16>
  // CHECK: %[[I:.+]] = tg.cast %[[H]] : tensor<16xf16> to tensor<16xi32>
  %2 = tg.cast %1 : tensor<16xf16> to tensor<16xi32>
  // CHECK: %[[P:.+]] = tg.cast %[[I]] : tensor<16xi32> to tensor<16xi1>
  %3 = tg.cast %2 : tensor<16xi32> to tensor<16xi1>
  // CHECK: %[[F:.+]] = tg.cast %[[P]] : tensor<16xi1> to tensor<16xf32>
  %4 = tg.cast %3 : tensor<16xi1> to tensor<16xf32>
  // CHECK: return %[[BF]], %[[H]], %[[I]], %[[P]], %[[F]]
  return %0, %1, %2, %3, %4 : tensor<16xbf16>, tensor<16xf16>, tensor<16xi32>, tensor<16xi1>, tensor<16xf32>
}

// CHECK-LABEL: func.func @layout
// CHECK-SAME: (%[[V:.+]]: tensor<4xf32>, %[[M:.+]]: tensor<3x1xi32>, %[[X:.+]]: tensor<12xbf16>, %[[T:.+]]: tensor<2x3x4xf16>, %[[S:.+]]: tensor<f32>)
func.func @layout(%v: tensor<4xf32>, %m: tensor<3x1xi32>, %x: tensor<12xbf16>, %t: tensor<2x3x4xf16>, %s: tensor<f32>)
    -> (tensor<3x4xf32>, tensor<2x3x5xi32>, tensor<2x2xf32>, tensor<3x4xbf16>, tensor<2x1x6xbf16>, tensor<1xf32>, tensor<4x2x3xf16>, tensor<3x4xf32>) {
  // Numpy-style: a [4] vector against [3, 4].
  // CHECK: %[[B0:.+]] = tg.broadcast %[[V]] dims = [1] : tensor<4xf32> to tensor<3x4xf32>
  %0 = tg.broadcast %v dims = [1] : tensor<4xf32> to tensor<3x4xf32>
  // A size-1 dim stretches, a new leading dim appears.
  // CHECK: %[[B1:.+]] = tg.broadcast %[[M]] dims = [1, 2] : tensor<3x1xi32> to tensor<2x3x5xi32>
  %1 = tg.broadcast %m dims = [1, 2] : tensor<3x1xi32> to tensor<2x3x5xi32>
  // A scalar broadcasts with no dims.
  // CHECK: %[[B2:.+]] = tg.broadcast %[[S]] dims = [] : tensor<f32> to tensor<2x2xf32>
  %2 = tg.broadcast %s dims = [] : tensor<f32> to tensor<2x2xf32>
  // CHECK: %[[R0:.+]] = tg.reshape %[[X]] : tensor<12xbf16> to tensor<3x4xbf16>
  %3 = tg.reshape %x : tensor<12xbf16> to tensor<3x4xbf16>
  // CHECK: %[[R1:.+]] = tg.reshape %[[R0]] : tensor<3x4xbf16> to tensor<2x1x6xbf16>
  %4 = tg.reshape %3 : tensor<3x4xbf16> to tensor<2x1x6xbf16>
  // CHECK: %[[R2:.+]] = tg.reshape %[[S]] : tensor<f32> to tensor<1xf32>
  %5 = tg.reshape %s : tensor<f32> to tensor<1xf32>
  // CHECK: %[[T0:.+]] = tg.transpose %[[T]] perm = [2, 0, 1] : tensor<2x3x4xf16> to tensor<4x2x3xf16>
  %6 = tg.transpose %t perm = [2, 0, 1] : tensor<2x3x4xf16> to tensor<4x2x3xf16>
  // CHECK: %[[T1:.+]] = tg.transpose %[[B0]] perm = [1, 0] : tensor<3x4xf32> to tensor<4x3xf32>
  %7 = tg.transpose %0 perm = [1, 0] : tensor<3x4xf32> to tensor<4x3xf32>
  // CHECK: %[[T2:.+]] = tg.transpose %[[T1]] perm = [1, 0] : tensor<4x3xf32> to tensor<3x4xf32>
  %8 = tg.transpose %7 perm = [1, 0] : tensor<4x3xf32> to tensor<3x4xf32>
  // CHECK: return %[[B0]], %[[B1]], %[[B2]], %[[R0]], %[[R1]], %[[R2]], %[[T0]], %[[T2]]
  return %0, %1, %2, %3, %4, %5, %6, %8 : tensor<3x4xf32>, tensor<2x3x5xi32>, tensor<2x2xf32>, tensor<3x4xbf16>, tensor<2x1x6xbf16>, tensor<1xf32>, tensor<4x2x3xf16>, tensor<3x4xf32>
}

// CHECK-LABEL: func.func @slice_and_iota
func.func @slice_and_iota(%x: tensor<8x192xbf16>) -> (tensor<8x64xbf16>, tensor<3x22xbf16>, tensor<8x512xi32>, tensor<16xf32>) {
  // CHECK: tg.slice %{{.+}} starts = [0, 64] limits = [8, 128] steps = [1, 1] : tensor<8x192xbf16> to tensor<8x64xbf16>
  %0 = tg.slice %x starts = [0, 64] limits = [8, 128] steps = [1, 1] : tensor<8x192xbf16> to tensor<8x64xbf16>
  // CHECK: tg.slice %{{.+}} starts = [1, 0] limits = [8, 64] steps = [3, 3] : tensor<8x192xbf16> to tensor<3x22xbf16>
  %1 = tg.slice %x starts = [1, 0] limits = [8, 64] steps = [3, 3] : tensor<8x192xbf16> to tensor<3x22xbf16>
  // CHECK: tg.iota axis = 1 : tensor<8x512xi32>
  %2 = tg.iota axis = 1 : tensor<8x512xi32>
  // CHECK: tg.iota axis = 0 : tensor<16xf32>
  %3 = tg.iota axis = 0 : tensor<16xf32>
  return %0, %1, %2, %3 : tensor<8x64xbf16>, tensor<3x22xbf16>, tensor<8x512xi32>, tensor<16xf32>
}

// CHECK-LABEL: func.func @reductions
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>, %[[I:.+]]: tensor<5x6xi32>, %[[B:.+]]: tensor<8x16xbf16>)
func.func @reductions(%x: tensor<2x3x4xf32>, %i: tensor<5x6xi32>, %b: tensor<8x16xbf16>)
    -> (tensor<3xf32>, tensor<2x1x1xf32>, tensor<5xi32>, tensor<1x6xi32>, tensor<f32>, tensor<8x1xbf16>, tensor<1x1x1xf32>, tensor<2x3x4xf32>) {
  // CHECK: %[[S0:.+]] = tg.reduce_sum %[[X]] axes = [0, 2] : tensor<2x3x4xf32> to tensor<3xf32>
  %0 = tg.reduce_sum %x axes = [0, 2] : tensor<2x3x4xf32> to tensor<3xf32>
  // CHECK: %[[S1:.+]] = tg.reduce_sum %[[X]] axes = [1, 2] keep_dims : tensor<2x3x4xf32> to tensor<2x1x1xf32>
  %1 = tg.reduce_sum %x axes = [1, 2] keep_dims : tensor<2x3x4xf32> to tensor<2x1x1xf32>
  // CHECK: %[[S2:.+]] = tg.reduce_sum %[[I]] axes = [1] : tensor<5x6xi32> to tensor<5xi32>
  %2 = tg.reduce_sum %i axes = [1] : tensor<5x6xi32> to tensor<5xi32>
  // CHECK: %[[M0:.+]] = tg.reduce_max %[[I]] axes = [0] keep_dims : tensor<5x6xi32> to tensor<1x6xi32>
  %3 = tg.reduce_max %i axes = [0] keep_dims : tensor<5x6xi32> to tensor<1x6xi32>
  // CHECK: %[[M1:.+]] = tg.reduce_max %[[X]] axes = [0, 1, 2] : tensor<2x3x4xf32> to tensor<f32>
  %4 = tg.reduce_max %x axes = [0, 1, 2] : tensor<2x3x4xf32> to tensor<f32>
  // CHECK: %[[A0:.+]] = tg.reduce_mean %[[B]] axes = [1] keep_dims : tensor<8x16xbf16> to tensor<8x1xbf16>
  %5 = tg.reduce_mean %b axes = [1] keep_dims : tensor<8x16xbf16> to tensor<8x1xbf16>
  // CHECK: %[[A1:.+]] = tg.reduce_mean %[[X]] axes = [0, 1, 2] keep_dims : tensor<2x3x4xf32> to tensor<1x1x1xf32>
  %6 = tg.reduce_mean %x axes = [0, 1, 2] keep_dims : tensor<2x3x4xf32> to tensor<1x1x1xf32>
  // No axes: the identity (kept by the parser, removed by -canonicalize).
  // CHECK: %[[A2:.+]] = tg.reduce_mean %[[X]] axes = [] : tensor<2x3x4xf32> to tensor<2x3x4xf32>
  %7 = tg.reduce_mean %x axes = [] : tensor<2x3x4xf32> to tensor<2x3x4xf32>
  // CHECK: return %[[S0]], %[[S1]], %[[S2]], %[[M0]], %[[M1]], %[[A0]], %[[A1]], %[[A2]]
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<3xf32>, tensor<2x1x1xf32>, tensor<5xi32>, tensor<1x6xi32>, tensor<f32>, tensor<8x1xbf16>, tensor<1x1x1xf32>, tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @more_reductions
func.func @more_reductions(%x: tensor<3x4xf32>, %i: tensor<3x4xi32>)
    -> (tensor<3xf32>, tensor<4xi32>, tensor<3xi32>, tensor<1x4xi32>) {
  // CHECK: tg.reduce_min %{{.+}} axes = [1] : tensor<3x4xf32> to tensor<3xf32>
  %0 = tg.reduce_min %x axes = [1] : tensor<3x4xf32> to tensor<3xf32>
  // CHECK: tg.reduce_prod %{{.+}} axes = [0] : tensor<3x4xi32> to tensor<4xi32>
  %1 = tg.reduce_prod %i axes = [0] : tensor<3x4xi32> to tensor<4xi32>
  // CHECK: tg.argmax %{{.+}} axes = [1] : tensor<3x4xf32> to tensor<3xi32>
  %2 = tg.argmax %x axes = [1] : tensor<3x4xf32> to tensor<3xi32>
  // CHECK: tg.argmin %{{.+}} axes = [0] keep_dims : tensor<3x4xi32> to tensor<1x4xi32>
  %3 = tg.argmin %i axes = [0] keep_dims : tensor<3x4xi32> to tensor<1x4xi32>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<4xi32>, tensor<3xi32>, tensor<1x4xi32>
}

// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.+]]: tensor<8x128xf32>, %[[H:.+]]: tensor<2x4x8xf16>)
func.func @softmax(%x: tensor<8x128xf32>, %h: tensor<2x4x8xf16>) -> (tensor<8x128xf32>, tensor<2x4x8xf16>) {
  // CHECK: %[[S0:.+]] = tg.softmax %[[X]] axis = 1 : tensor<8x128xf32>
  %0 = tg.softmax %x axis = 1 : tensor<8x128xf32>
  // CHECK: %[[S1:.+]] = tg.softmax %[[H]] axis = 0 : tensor<2x4x8xf16>
  %1 = tg.softmax %h axis = 0 : tensor<2x4x8xf16>
  // CHECK: return %[[S0]], %[[S1]]
  return %0, %1 : tensor<8x128xf32>, tensor<2x4x8xf16>
}

// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.+]]: tensor<8x512xf32>, %[[W:.+]]: tensor<512xf32>, %[[B:.+]]: tensor<512xf32>, %[[H:.+]]: tensor<64xbf16>)
func.func @layer_norm(%x: tensor<8x512xf32>, %w: tensor<512xf32>, %b: tensor<512xf32>, %h: tensor<64xbf16>)
    -> (tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<64xbf16>) {
  // CHECK: %[[N0:.+]] = tg.layer_norm %[[X]] epsilon = 1.000000e-05 : tensor<8x512xf32>
  %0 = tg.layer_norm %x epsilon = 1.0e-05 : tensor<8x512xf32>
  // CHECK: %[[N1:.+]] = tg.layer_norm %[[X]] weight %[[W]] : tensor<512xf32> epsilon = 1.000000e-05 : tensor<8x512xf32>
  %1 = tg.layer_norm %x weight %w : tensor<512xf32> epsilon = 1.0e-05 : tensor<8x512xf32>
  // CHECK: %[[N2:.+]] = tg.layer_norm %[[X]] bias %[[B]] : tensor<512xf32> epsilon = 1.000000e-03 : tensor<8x512xf32>
  %2 = tg.layer_norm %x bias %b : tensor<512xf32> epsilon = 1.0e-03 : tensor<8x512xf32>
  // CHECK: %[[N3:.+]] = tg.layer_norm %[[X]] weight %[[W]] : tensor<512xf32> bias %[[B]] : tensor<512xf32> epsilon = 0.000000e+00 : tensor<8x512xf32>
  %3 = tg.layer_norm %x weight %w : tensor<512xf32> bias %b : tensor<512xf32> epsilon = 0.0 : tensor<8x512xf32>
  // CHECK: %[[N4:.+]] = tg.layer_norm %[[H]] weight %[[H]] : tensor<64xbf16> epsilon = 1.000000e-05 : tensor<64xbf16>
  %4 = tg.layer_norm %h weight %h : tensor<64xbf16> epsilon = 1.0e-05 : tensor<64xbf16>
  // CHECK: return %[[N0]], %[[N1]], %[[N2]], %[[N3]], %[[N4]]
  return %0, %1, %2, %3, %4 : tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<64xbf16>
}

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.+]]: tensor<8x64xbf16>, %[[B:.+]]: tensor<64x32xbf16>, %[[BT:.+]]: tensor<32x64xbf16>, %[[AT:.+]]: tensor<64x8xbf16>, %[[Q:.+]]: tensor<2x4x8x16xf32>, %[[K:.+]]: tensor<2x4x16x8xf32>, %[[X:.+]]: tensor<3x5x16xf16>, %[[W:.+]]: tensor<16x7xf16>)
func.func @matmul(%a: tensor<8x64xbf16>, %b: tensor<64x32xbf16>, %bt: tensor<32x64xbf16>, %at: tensor<64x8xbf16>,
                  %q: tensor<2x4x8x16xf32>, %k: tensor<2x4x16x8xf32>, %x: tensor<3x5x16xf16>, %w: tensor<16x7xf16>)
    -> (tensor<8x32xbf16>, tensor<8x32xbf16>, tensor<8x32xbf16>, tensor<8x32xbf16>, tensor<2x4x8x8xf32>, tensor<2x4x16x16xf32>, tensor<3x5x7xf16>, tensor<3x7x5xf16>) {
  // CHECK: %[[M0:.+]] = tg.matmul %[[A]], %[[B]] : tensor<8x64xbf16>, tensor<64x32xbf16> -> tensor<8x32xbf16>
  %0 = tg.matmul %a, %b : tensor<8x64xbf16>, tensor<64x32xbf16> -> tensor<8x32xbf16>
  // CHECK: %[[M1:.+]] = tg.matmul %[[A]], %[[BT]] transpose_b : tensor<8x64xbf16>, tensor<32x64xbf16> -> tensor<8x32xbf16>
  %1 = tg.matmul %a, %bt transpose_b : tensor<8x64xbf16>, tensor<32x64xbf16> -> tensor<8x32xbf16>
  // CHECK: %[[M2:.+]] = tg.matmul %[[AT]], %[[B]] transpose_a : tensor<64x8xbf16>, tensor<64x32xbf16> -> tensor<8x32xbf16>
  %2 = tg.matmul %at, %b transpose_a : tensor<64x8xbf16>, tensor<64x32xbf16> -> tensor<8x32xbf16>
  // CHECK: %[[M3:.+]] = tg.matmul %[[AT]], %[[BT]] transpose_a transpose_b : tensor<64x8xbf16>, tensor<32x64xbf16> -> tensor<8x32xbf16>
  %3 = tg.matmul %at, %bt transpose_a transpose_b : tensor<64x8xbf16>, tensor<32x64xbf16> -> tensor<8x32xbf16>
  // Batched: equal batch dims.
  // CHECK: %[[M4:.+]] = tg.matmul %[[Q]], %[[K]] : tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x8x8xf32>
  %4 = tg.matmul %q, %k : tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x8x8xf32>
  // CHECK: %[[M5:.+]] = tg.matmul %[[Q]], %[[K]] transpose_a transpose_b : tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x16xf32>
  %5 = tg.matmul %q, %k transpose_a transpose_b : tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x16xf32>
  // A rank-2 weight shared by every batch, on either side.
  // CHECK: %[[M6:.+]] = tg.matmul %[[X]], %[[W]] : tensor<3x5x16xf16>, tensor<16x7xf16> -> tensor<3x5x7xf16>
  %6 = tg.matmul %x, %w : tensor<3x5x16xf16>, tensor<16x7xf16> -> tensor<3x5x7xf16>
  // CHECK: %[[M7:.+]] = tg.matmul %[[W]], %[[X]] transpose_a transpose_b : tensor<16x7xf16>, tensor<3x5x16xf16> -> tensor<3x7x5xf16>
  %7 = tg.matmul %w, %x transpose_a transpose_b : tensor<16x7xf16>, tensor<3x5x16xf16> -> tensor<3x7x5xf16>
  // CHECK: return %[[M0]], %[[M1]], %[[M2]], %[[M3]], %[[M4]], %[[M5]], %[[M6]], %[[M7]]
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<8x32xbf16>, tensor<8x32xbf16>, tensor<8x32xbf16>, tensor<8x32xbf16>, tensor<2x4x8x8xf32>, tensor<2x4x16x16xf32>, tensor<3x5x7xf16>, tensor<3x7x5xf16>
}

// A fused kernel with two results of different types, each kind of fusion.
// CHECK-LABEL: func.func @fusion
// CHECK-SAME: (%[[X:.+]]: tensor<16xf32>, %[[Y:.+]]: tensor<16xf32>, %[[M:.+]]: tensor<4x8xf32>, %[[W:.+]]: tensor<8x8xf32>)
func.func @fusion(%x: tensor<16xf32>, %y: tensor<16xf32>, %m: tensor<4x8xf32>, %w: tensor<8x8xf32>)
    -> (tensor<16xf32>, tensor<16xbf16>, tensor<4xf32>, tensor<4x8xf32>) {
  // CHECK: %[[F:.+]]:2 = tg.fusion elementwise(%[[X]], %[[Y]]) : (tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<16xbf16>) {
  // CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<16xf32>, %[[B:.+]]: tensor<16xf32>):
  // CHECK-NEXT:   %[[S:.+]] = tg.add %[[A]], %[[B]] : tensor<16xf32>
  // CHECK-NEXT:   %[[T:.+]] = tg.tanh %[[S]] : tensor<16xf32>
  // CHECK-NEXT:   %[[C:.+]] = tg.cast %[[T]] : tensor<16xf32> to tensor<16xbf16>
  // CHECK-NEXT:   tg.yield %[[T]], %[[C]] : tensor<16xf32>, tensor<16xbf16>
  // CHECK-NEXT: }
  %r:2 = tg.fusion elementwise (%x, %y) : (tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<16xbf16>) {
  ^bb0(%a: tensor<16xf32>, %b: tensor<16xf32>):
    %s = tg.add %a, %b : tensor<16xf32>
    %t = tg.tanh %s : tensor<16xf32>
    %c = tg.cast %t : tensor<16xf32> to tensor<16xbf16>
    tg.yield %t, %c : tensor<16xf32>, tensor<16xbf16>
  }
  // CHECK: %[[R:.+]] = tg.fusion reduction(%[[M]]) : (tensor<4x8xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: ^bb0(%[[RA:.+]]: tensor<4x8xf32>):
  // CHECK-NEXT:   %[[RE:.+]] = tg.exp %[[RA]] : tensor<4x8xf32>
  // CHECK-NEXT:   %[[RS:.+]] = tg.reduce_sum %[[RE]] axes = [1] : tensor<4x8xf32> to tensor<4xf32>
  // CHECK-NEXT:   tg.yield %[[RS]] : tensor<4xf32>
  // CHECK-NEXT: }
  %s = tg.fusion reduction (%m) : (tensor<4x8xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %e = tg.exp %a : tensor<4x8xf32>
    %sum = tg.reduce_sum %e axes = [1] : tensor<4x8xf32> to tensor<4xf32>
    tg.yield %sum : tensor<4xf32>
  }
  // CHECK: %[[G:.+]] = tg.fusion gemm(%[[M]], %[[W]]) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
  // CHECK-NEXT: ^bb0(%[[GA:.+]]: tensor<4x8xf32>, %[[GB:.+]]: tensor<8x8xf32>):
  // CHECK-NEXT:   %[[GM:.+]] = tg.matmul %[[GA]], %[[GB]] : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  // CHECK-NEXT:   %[[GR:.+]] = tg.relu %[[GM]] : tensor<4x8xf32>
  // CHECK-NEXT:   tg.yield %[[GR]] : tensor<4x8xf32>
  // CHECK-NEXT: }
  %g = tg.fusion gemm (%m, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>):
    %p = tg.matmul %a, %b : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %q = tg.relu %p : tensor<4x8xf32>
    tg.yield %q : tensor<4x8xf32>
  }
  // The configuration tg-select-matmul records, with every field.
  // CHECK: tg.fusion gemm(%[[M]], %[[W]]) {matmul = #tg.matmul<path = simt, arch = "sm_80", tile = [32, 32, 16], stages = 0, schedule = none, kmajor_copy = "", reason = "too small \22for\22 TMA">}
  %h = tg.fusion gemm (%m, %w) {matmul = #tg.matmul<path = simt, arch = "sm_80", tile = [32, 32, 16], stages = 0, schedule = none, kmajor_copy = "", reason = "too small \"for\" TMA">} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>):
    %p = tg.matmul %a, %b : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    tg.yield %p : tensor<4x8xf32>
  }
  // CHECK: matmul = #tg.matmul<path = wgmma, arch = "sm_90a", tile = [128, 256, 64], stages = 4, schedule = pingpong, kmajor_copy = "A, B", reason = "">
  // CHECK-SAME: tg.buffers = [#tg.buffer<kind = arena, index = -1, offset = 256, bytes = 128>]
  %k = tg.fusion gemm (%m, %w) {matmul = #tg.matmul<path = wgmma, arch = "sm_90a", tile = [128, 256, 64], stages = 4, schedule = pingpong, kmajor_copy = "A, B", reason = "">, tg.buffers = [#tg.buffer<kind = arena, index = -1, offset = 256, bytes = 128>]} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>):
    %p = tg.matmul %a, %b : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    tg.yield %p : tensor<4x8xf32>
  }
  // CHECK: return %[[F]]#0, %[[F]]#1, %[[R]], %[[G]]
  return %r#0, %r#1, %s, %g : tensor<16xf32>, tensor<16xbf16>, tensor<4xf32>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @check
// CHECK-SAME: (%[[C:.+]]: tensor<8xi1>)
// CHECK-NEXT: tg.check %[[C]] id = 3 : tensor<8xi1>
// CHECK-NEXT: tg.fusion check(%[[C]]) : (tensor<8xi1>) -> () {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<8xi1>):
// CHECK-NEXT:   tg.check %[[A]] id = 4 : tensor<8xi1>
// CHECK-NEXT:   tg.yield
func.func @check(%c: tensor<8xi1>) {
  tg.check %c id = 3 : tensor<8xi1>
  tg.fusion check (%c) : (tensor<8xi1>) -> () {
  ^bb0(%a: tensor<8xi1>):
    tg.check %a id = 4 : tensor<8xi1>
    tg.yield
  }
  return
}

// Indices read on the device: gather, dynamic_slice, dynamic_update_slice.
// CHECK-LABEL: func.func @indexed
func.func @indexed(%t: tensor<100x8xbf16>, %i: tensor<2x3xi32>, %c: tensor<4x64x16xf32>, %k: tensor<2x1x16xf32>, %p: tensor<i32>)
    -> (tensor<2x3x8xbf16>, tensor<4x5x16xf32>, tensor<4x64x16xf32>) {
  // CHECK: tg.gather %{{.+}}, %{{.+}} axis = 0 check = 1 : (tensor<100x8xbf16>, tensor<2x3xi32>) -> tensor<2x3x8xbf16>
  %0 = tg.gather %t, %i axis = 0 check = 1 : (tensor<100x8xbf16>, tensor<2x3xi32>) -> tensor<2x3x8xbf16>
  // CHECK: tg.dynamic_slice %{{.+}}, %{{.+}} axis = 1 check = 2 : (tensor<4x64x16xf32>, tensor<i32>) -> tensor<4x5x16xf32>
  %1 = tg.dynamic_slice %c, %p axis = 1 check = 2 : (tensor<4x64x16xf32>, tensor<i32>) -> tensor<4x5x16xf32>
  // CHECK: tg.dynamic_update_slice %{{.+}}, %{{.+}}, %{{.+}} axis = 1 offsets = [2, 0, 0] check = 3 : (tensor<4x64x16xf32>, tensor<2x1x16xf32>, tensor<i32>) -> tensor<4x64x16xf32>
  %2 = tg.dynamic_update_slice %c, %k, %p axis = 1 offsets = [2, 0, 0] check = 3 : (tensor<4x64x16xf32>, tensor<2x1x16xf32>, tensor<i32>) -> tensor<4x64x16xf32>
  return %0, %1, %2 : tensor<2x3x8xbf16>, tensor<4x5x16xf32>, tensor<4x64x16xf32>
}
