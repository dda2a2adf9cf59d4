// RUN: tg-opt %s -split-input-file -verify-diagnostics
//
// One case per distinct verifier error of the tg dialect: the shape and dtype rules of
// ShapeRules.cpp (through the TgShapeRules trait), ConstantOp::verify, FusionOp::verify, and
// the ODS constraints in front of them.
//
// Not reachable from IR, so not here: "expects N operands" and "has a negative extent" (ODS
// fixes operand counts and static shapes first), "unknown op kind", "reshape target has a
// negative extent", and checkSameTypes' "operands have different dtypes/shapes" for elementwise
// ops and select (SameOperandsAndResultType, SameTypeOperands, Elementwise and AllTypesMatch
// fire first; the cases below pin which error wins).

//===----------------------------------------------------------------------===//
// ODS: what a tg tensor is
//===----------------------------------------------------------------------===//

func.func @dynamic_shape(%x: tensor<?xf32>) {
  // expected-error @+1 {{'tg.exp' op operand #0 must be statically shaped tensor (no encoding, at most 2^48 bytes), or one with dynamic dims described by #tg.sizes of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 1-bit signless integer values, but got 'tensor<?xf32>'}}
  %0 = tg.exp %x : tensor<?xf32>
  return
}

// -----

func.func @f64_element(%x: tensor<4xf64>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor (no encoding, at most 2^48 bytes), or one with dynamic dims described by #tg.sizes of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 1-bit signless integer values, but got 'tensor<4xf64>'}}
  %0 = tg.neg %x : tensor<4xf64>
  return
}

// -----

func.func @i64_element(%x: tensor<4xi64>, %y: tensor<4xi64>) {
  // expected-error @+1 {{but got 'tensor<4xi64>'}}
  %0 = tg.add %x, %y : tensor<4xi64>
  return
}

// -----

func.func @unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{'tg.reshape' op operand #0 must be statically shaped tensor (no encoding, at most 2^48 bytes), or one with dynamic dims described by #tg.sizes of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 1-bit signless integer values, but got 'tensor<*xf32>'}}
  %0 = "tg.reshape"(%x) : (tensor<*xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @signed_i32(%x: tensor<4xsi32>) {
  // expected-error @+1 {{but got 'tensor<4xsi32>'}}
  %0 = tg.abs %x : tensor<4xsi32>
  return
}

// -----

// A tensor encoding means nothing to tg: the type constraint refuses it rather than dropping it.
func.func @encoded_operand(%x: tensor<4xf32, "sparse">) {
  // expected-error @+1 {{'tg.exp' op operand #0 must be statically shaped tensor (no encoding, at most 2^48 bytes), or one with dynamic dims described by #tg.sizes of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 1-bit signless integer values, but got 'tensor<4xf32, "sparse">'}}
  %0 = tg.exp %x : tensor<4xf32, "sparse">
  return
}

// -----

func.func @encoded_result(%x: tensor<12xf32>) {
  // expected-error @+1 {{'tg.reshape' op result #0 must be statically shaped tensor (no encoding, at most 2^48 bytes), or one with dynamic dims described by #tg.sizes of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 1-bit signless integer values, but got 'tensor<3x4xf32, "sparse">'}}
  %0 = tg.reshape %x : tensor<12xf32> to tensor<3x4xf32, "sparse">
  return
}

// -----

func.func @f64_constant() {
  // expected-error @+1 {{'tg.constant' op result #0 must be statically shaped tensor (no encoding, at most 2^48 bytes), or one with dynamic dims described by #tg.sizes of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 1-bit signless integer values, but got 'tensor<4xf64>'}}
  %0 = tg.constant dense<1.0> : tensor<4xf64>
  return
}

// -----

func.func @bad_predicate(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, lt, le, gt, ge]}}
  %0 = tg.cmp foo, %x, %x : tensor<4xf32>
  return
}

// -----

func.func @bad_gelu_approximation(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'approximate' [erf, tanh]}}
  %0 = tg.gelu %x approximate = sigmoid : tensor<4xf32>
  return
}

// -----

func.func @yield_outside_fusion(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tg.yield' op expects parent op 'tg.fusion'}}
  tg.yield %x : tensor<4xf32>
}

// -----

// Sizes: a tensor holds at most 2^48 bytes (zero extents counted as 1), so that element
// counts and offsets fit in int64 wherever code generation multiplies them. 2^64 elements
// used to verify (getNumElements() wrapped to 0) and plan 0-byte buffers.
func.func @elements_past_int64() {
  // expected-error @+1 {{'tg.constant' op result #0 must be statically shaped tensor (no encoding, at most 2^48 bytes), or one with dynamic dims described by #tg.sizes of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 1-bit signless integer values, but got 'tensor<4294967296x4294967296xf32>'}}
  %c = tg.constant dense<1.5> : tensor<4294967296x4294967296xf32>
  return
}

// -----

// 2^47 f32 elements are 2^49 bytes: over the limit although the count fits.
func.func @bytes_past_limit(%x: tensor<140737488355328xf32>) {
  // expected-error @+1 {{'tg.exp' op operand #0 must be statically shaped tensor (no encoding, at most 2^48 bytes), or one with dynamic dims described by #tg.sizes of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 1-bit signless integer values, but got 'tensor<140737488355328xf32>'}}
  %0 = tg.exp %x : tensor<140737488355328xf32>
  return
}

// -----

// A zero extent does not hide the others: [2^40, 2^40, 0] has no elements, but its strides
// would overflow.
func.func @zero_extent_hides_nothing(%x: tensor<1099511627776x1099511627776x0xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor (no encoding, at most 2^48 bytes), or one with dynamic dims described by #tg.sizes of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 1-bit signless integer values, but got 'tensor<1099511627776x1099511627776x0xf32>'}}
  %0 = tg.neg %x : tensor<1099511627776x1099511627776x0xf32>
  return
}

// -----

// Exactly 2^48 bytes is allowed (the verifier accepts it; no GPU would hold it).
func.func @at_the_limit(%x: tensor<70368744177664xf32>) -> tensor<70368744177664xf32> {
  %0 = tg.neg %x : tensor<70368744177664xf32>
  return %0 : tensor<70368744177664xf32>
}

// -----

// Layout ops can name shapes far larger than their operand: the result is checked too.
func.func @broadcast_past_limit(%x: tensor<1xf32>) {
  // expected-error @+1 {{'tg.broadcast' op result #0 must be statically shaped tensor (no encoding, at most 2^48 bytes), or one with dynamic dims described by #tg.sizes of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 1-bit signless integer values, but got 'tensor<4294967296x4294967296xf32>'}}
  %0 = tg.broadcast %x dims = [1] : tensor<1xf32> to tensor<4294967296x4294967296xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tg.constant
//===----------------------------------------------------------------------===//

// The result type is inferred from the value, so only the generic form can disagree.
func.func @constant_value_f64() {
  // expected-error @+1 {{'tg.constant' op value must be a tg tensor: tensor<4xf64> does not have a tg element type (f32, f16, bf16, i32 or i1)}}
  %0 = "tg.constant"() <{value = dense<1.0> : tensor<4xf64>}> : () -> tensor<4xf32>
  return
}

// -----

func.func @constant_value_vector() {
  // expected-error @+1 {{'tg.constant' op value must be a tg tensor: vector<4xf32> is not a ranked tensor}}
  %0 = "tg.constant"() <{value = dense<1.0> : vector<4xf32>}> : () -> tensor<4xf32>
  return
}

// -----

func.func @constant_value_encoded() {
  // expected-error @+1 {{'tg.constant' op result #0 must be statically shaped tensor (no encoding, at most 2^48 bytes), or one with dynamic dims described by #tg.sizes of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 1-bit signless integer values, but got 'tensor<4xf32, "sparse">'}}
  %0 = tg.constant dense<1.0> : tensor<4xf32, "sparse">
  return
}

// -----

// sparse<...> and dense_resource<...> are ElementsAttrs too, but nothing in tg reads them.
func.func @constant_sparse() {
  // expected-error @+1 {{'tg.constant' op value must be a dense<...> literal, got sparse<0, 1.000000e+00> : tensor<4xf32>}}
  %0 = tg.constant sparse<[[0]], [1.0]> : tensor<4xf32>
  return
}

// -----

func.func @constant_value_shape() {
  // expected-error @+2 {{'tg.constant' op inferred type(s) 'tensor<8xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'tg.constant' op failed to infer returned types}}
  %0 = "tg.constant"() <{value = dense<1.0> : tensor<8xf32>}> : () -> tensor<4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Elementwise dtypes
//===----------------------------------------------------------------------===//

func.func @exp_i32(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tg.exp' op needs a floating-point operand (f32, f16 or bf16), got i32}}
  %0 = tg.exp %x : tensor<4xi32>
  return
}

// -----

func.func @sqrt_i1(%x: tensor<4xi1>) {
  // expected-error @+1 {{'tg.sqrt' op needs a floating-point operand (f32, f16 or bf16), got bool}}
  %0 = tg.sqrt %x : tensor<4xi1>
  return
}

// -----

func.func @gelu_i32(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tg.gelu' op needs a floating-point operand (f32, f16 or bf16), got i32}}
  %0 = tg.gelu %x approximate = erf : tensor<4xi32>
  return
}

// -----

func.func @pow_i32(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tg.pow' op needs a floating-point operand (f32, f16 or bf16), got i32}}
  %0 = tg.pow %x, %x : tensor<4xi32>
  return
}

// -----

func.func @neg_i1(%x: tensor<4xi1>) {
  // expected-error @+1 {{'tg.neg' op needs a numeric operand (f32, f16, bf16 or i32), got bool}}
  %0 = tg.neg %x : tensor<4xi1>
  return
}

// -----

func.func @add_i1(%x: tensor<4xi1>) {
  // expected-error @+1 {{'tg.add' op needs a numeric operand (f32, f16, bf16 or i32), got bool}}
  %0 = tg.add %x, %x : tensor<4xi1>
  return
}

// -----

func.func @maximum_i1(%x: tensor<4xi1>) {
  // expected-error @+1 {{'tg.maximum' op needs a numeric operand (f32, f16, bf16 or i32), got bool}}
  %0 = tg.maximum %x, %x : tensor<4xi1>
  return
}

// -----

// Mismatched operands of binary ops are caught by SameOperandsAndResultType, before the shape
// rules (the custom syntax cannot even spell them).
func.func @add_mixed_dtypes(%x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{'tg.add' op requires the same type for all operands and results}}
  %0 = "tg.add"(%x, %y) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @mul_mixed_shapes(%x: tensor<4xf32>, %y: tensor<1xf32>) {
  // expected-error @+1 {{'tg.mul' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "tg.mul"(%x, %y) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @unary_result_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tg.tanh' op requires the same type for all operands and results}}
  %0 = "tg.tanh"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @cmp_mixed_dtypes(%x: tensor<4xf32>, %y: tensor<4xbf16>) {
  // expected-error @+1 {{'tg.cmp' op requires all operands to have the same type}}
  %0 = "tg.cmp"(%x, %y) <{predicate = 2 : i64}> : (tensor<4xf32>, tensor<4xbf16>) -> tensor<4xi1>
  return
}

// -----

func.func @cmp_result_not_i1(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tg.cmp' op result type 'tensor<4xf32>' does not match the inferred type 'tensor<4xi1>'}}
  %0 = "tg.cmp"(%x, %x) <{predicate = 0 : i64}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tg.select, tg.cast
//===----------------------------------------------------------------------===//

func.func @select_condition_not_i1(%c: tensor<4xf32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'tg.select' op condition must be a bool tensor, got f32[4]}}
  %0 = tg.select %c, %x, %x : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// The Elementwise trait rejects the shape mismatch before the shape rules see it.
func.func @select_condition_shape(%c: tensor<4xi1>, %x: tensor<8xf32>) {
  // expected-error @+1 {{'tg.select' op all non-scalar operands/results must have the same shape and base type}}
  %0 = tg.select %c, %x, %x : tensor<4xi1>, tensor<8xf32>
  return
}

// -----

func.func @select_branch_types(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{'tg.select' op failed to verify that all of {true_value, false_value, result} have same type}}
  %0 = "tg.select"(%c, %x, %y) : (tensor<4xi1>, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @cast_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tg.cast' op all non-scalar operands/results must have the same shape and base type}}
  %0 = tg.cast %x : tensor<4xf32> to tensor<2x2xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tg.broadcast
//===----------------------------------------------------------------------===//

func.func @broadcast_dims_count(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'tg.broadcast' op broadcast dims [1] must have one entry per operand dim (2)}}
  %0 = tg.broadcast %x dims = [1] : tensor<3x4xf32> to tensor<2x3x4xf32>
  return
}

// -----

func.func @broadcast_dim_out_of_range(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tg.broadcast' op broadcast dim 2 is out of range for result rank 2}}
  %0 = tg.broadcast %x dims = [2] : tensor<4xf32> to tensor<3x4xf32>
  return
}

// -----

func.func @broadcast_dim_negative(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tg.broadcast' op broadcast dim -1 is out of range for result rank 2}}
  %0 = tg.broadcast %x dims = [-1] : tensor<4xf32> to tensor<3x4xf32>
  return
}

// -----

func.func @broadcast_dims_not_increasing(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'tg.broadcast' op broadcast dims [1, 0] must be strictly increasing}}
  %0 = tg.broadcast %x dims = [1, 0] : tensor<4x3xf32> to tensor<3x4xf32>
  return
}

// -----

func.func @broadcast_dims_repeated(%x: tensor<1x1xf32>) {
  // expected-error @+1 {{'tg.broadcast' op broadcast dims [0, 0] must be strictly increasing}}
  %0 = tg.broadcast %x dims = [0, 0] : tensor<1x1xf32> to tensor<3x4xf32>
  return
}

// -----

func.func @broadcast_incompatible_size(%x: tensor<3xf32>) {
  // expected-error @+1 {{'tg.broadcast' op operand dim 0 of size 3 cannot broadcast to result dim 1 of size 4}}
  %0 = tg.broadcast %x dims = [1] : tensor<3xf32> to tensor<3x4xf32>
  return
}

// -----

func.func @broadcast_dtype(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tg.broadcast' op result type 'tensor<3x4xf16>' does not match the inferred type 'tensor<3x4xf32>'}}
  %0 = tg.broadcast %x dims = [1] : tensor<4xf32> to tensor<3x4xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tg.reshape, tg.transpose
//===----------------------------------------------------------------------===//

func.func @reshape_element_count(%x: tensor<12xf32>) {
  // expected-error @+1 {{'tg.reshape' op cannot reshape f32[12] (12 elements) to [5, 3] (15 elements)}}
  %0 = tg.reshape %x : tensor<12xf32> to tensor<5x3xf32>
  return
}

// -----

func.func @reshape_dtype(%x: tensor<12xf32>) {
  // expected-error @+1 {{'tg.reshape' op result type 'tensor<3x4xi32>' does not match the inferred type 'tensor<3x4xf32>'}}
  %0 = tg.reshape %x : tensor<12xf32> to tensor<3x4xi32>
  return
}

// -----

func.func @transpose_perm_repeated(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'tg.transpose' op perm [0, 0] is not a permutation of the 2 dims of f32[3, 4]}}
  %0 = tg.transpose %x perm = [0, 0] : tensor<3x4xf32> to tensor<3x3xf32>
  return
}

// -----

func.func @transpose_perm_length(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'tg.transpose' op perm [1, 0, 2] is not a permutation of the 2 dims of f32[3, 4]}}
  %0 = tg.transpose %x perm = [1, 0, 2] : tensor<3x4xf32> to tensor<4x3xf32>
  return
}

// -----

func.func @transpose_perm_out_of_range(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'tg.transpose' op perm [2, 0] is not a permutation of the 2 dims of f32[3, 4]}}
  %0 = tg.transpose %x perm = [2, 0] : tensor<3x4xf32> to tensor<4x3xf32>
  return
}

// -----

func.func @transpose_result_shape(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'tg.transpose' op result type 'tensor<3x4xf32>' does not match the inferred type 'tensor<4x3xf32>'}}
  %0 = tg.transpose %x perm = [1, 0] : tensor<3x4xf32> to tensor<3x4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

func.func @reduce_axis_out_of_range(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'tg.reduce_sum' op axis 2 is out of range for rank 2}}
  %0 = tg.reduce_sum %x axes = [2] : tensor<3x4xf32> to tensor<3xf32>
  return
}

// -----

func.func @reduce_axis_negative(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'tg.reduce_max' op axis -1 is out of range for rank 2}}
  %0 = tg.reduce_max %x axes = [-1] : tensor<3x4xf32> to tensor<3xf32>
  return
}

// -----

func.func @reduce_axes_repeated(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'tg.reduce_sum' op axes [1, 1] must be strictly increasing (no repeats)}}
  %0 = tg.reduce_sum %x axes = [1, 1] : tensor<3x4xf32> to tensor<3xf32>
  return
}

// -----

func.func @reduce_axes_unordered(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'tg.reduce_mean' op axes [1, 0] must be strictly increasing (no repeats)}}
  %0 = tg.reduce_mean %x axes = [1, 0] : tensor<3x4xf32> to tensor<f32>
  return
}

// -----

func.func @reduce_mean_i32(%x: tensor<3x4xi32>) {
  // expected-error @+1 {{'tg.reduce_mean' op needs a floating-point operand, got i32}}
  %0 = tg.reduce_mean %x axes = [1] : tensor<3x4xi32> to tensor<3xi32>
  return
}

// -----

func.func @reduce_sum_i1(%x: tensor<3x4xi1>) {
  // expected-error @+1 {{'tg.reduce_sum' op cannot reduce a bool tensor}}
  %0 = tg.reduce_sum %x axes = [1] : tensor<3x4xi1> to tensor<3xi1>
  return
}

// -----

func.func @argmax_two_axes(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'tg.argmax' op takes exactly one axis, got [0, 1]}}
  %0 = tg.argmax %x axes = [0, 1] : tensor<3x4xf32> to tensor<i32>
  return
}

// -----

func.func @argmin_empty_axis(%x: tensor<3x0xf32>) {
  // expected-error @+1 {{'tg.argmin' op axis 1 of f32[3, 0] is empty: there is no index to return}}
  %0 = tg.argmin %x axes = [1] : tensor<3x0xf32> to tensor<3xi32>
  return
}

// -----

func.func @argmax_result_dtype(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'tg.argmax' op result type 'tensor<3xf32>' does not match the inferred type 'tensor<3xi32>'}}
  %0 = tg.argmax %x axes = [1] : tensor<3x4xf32> to tensor<3xf32>
  return
}

// -----

func.func @slice_out_of_range(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'tg.slice' op dim 1 of f32[3, 4] cannot be sliced from 2 to 5 (need 0 <= start <= limit <= 4)}}
  %0 = tg.slice %x starts = [0, 2] limits = [3, 5] steps = [1, 1] : tensor<3x4xf32> to tensor<3x3xf32>
  return
}

// -----

func.func @slice_step_zero(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'tg.slice' op step 0 of dim 0 must be at least 1}}
  %0 = tg.slice %x starts = [0, 0] limits = [3, 4] steps = [0, 1] : tensor<3x4xf32> to tensor<3x4xf32>
  return
}

// -----

func.func @slice_result_shape(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'tg.slice' op result type 'tensor<3x2xf32>' does not match the inferred type 'tensor<3x1xf32>'}}
  %0 = tg.slice %x starts = [0, 1] limits = [3, 4] steps = [1, 3] : tensor<3x4xf32> to tensor<3x2xf32>
  return
}

// -----

func.func @iota_axis(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'tg.iota' op axis 2 is out of range for rank 2}}
  %0 = tg.iota axis = 2 : tensor<3x4xi32>
  return
}

// -----

func.func @iota_bool() {
  // expected-error @+1 {{'tg.iota' op needs a numeric result (f32, f16, bf16 or i32), got bool}}
  %0 = tg.iota axis = 0 : tensor<4xi1>
  return
}

// -----

func.func @floor_i32(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tg.floor' op needs a floating-point operand (f32, f16 or bf16), got i32}}
  %0 = tg.floor %x : tensor<4xi32>
  return
}

// -----

func.func @reduce_max_i1(%x: tensor<3x4xi1>) {
  // expected-error @+1 {{'tg.reduce_max' op cannot reduce a bool tensor}}
  %0 = tg.reduce_max %x axes = [0] : tensor<3x4xi1> to tensor<4xi1>
  return
}

// -----

func.func @reduce_keep_dims_result(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'tg.reduce_sum' op result type 'tensor<3xf32>' does not match the inferred type 'tensor<3x1xf32>'}}
  %0 = tg.reduce_sum %x axes = [1] keep_dims : tensor<3x4xf32> to tensor<3xf32>
  return
}

// -----

func.func @reduce_result(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'tg.reduce_max' op result type 'tensor<3x1xf32>' does not match the inferred type 'tensor<3xf32>'}}
  %0 = tg.reduce_max %x axes = [1] : tensor<3x4xf32> to tensor<3x1xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tg.softmax, tg.layer_norm
//===----------------------------------------------------------------------===//

func.func @softmax_i32(%x: tensor<2x8xi32>) {
  // expected-error @+1 {{'tg.softmax' op needs a floating-point operand, got i32}}
  %0 = tg.softmax %x axis = 1 : tensor<2x8xi32>
  return
}

// -----

func.func @softmax_axis_out_of_range(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'tg.softmax' op axis 2 is out of range for rank 2}}
  %0 = tg.softmax %x axis = 2 : tensor<2x8xf32>
  return
}

// -----

// Negative axes are normalised by the frontend; the dialect only takes [0, rank).
func.func @softmax_axis_negative(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'tg.softmax' op axis -1 is out of range for rank 2}}
  %0 = tg.softmax %x axis = -1 : tensor<2x8xf32>
  return
}

// -----

func.func @layer_norm_i32(%x: tensor<2x8xi32>) {
  // expected-error @+1 {{'tg.layer_norm' op needs a floating-point operand, got i32}}
  %0 = tg.layer_norm %x epsilon = 1.0e-05 : tensor<2x8xi32>
  return
}

// -----

func.func @layer_norm_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{'tg.layer_norm' op needs an operand of rank 1 or more}}
  %0 = tg.layer_norm %x epsilon = 1.0e-05 : tensor<f32>
  return
}

// -----

func.func @layer_norm_negative_epsilon(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'tg.layer_norm' op epsilon must be non-negative}}
  %0 = tg.layer_norm %x epsilon = -1.0e-05 : tensor<2x8xf32>
  return
}

// -----

func.func @layer_norm_nan_epsilon(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'tg.layer_norm' op epsilon must be non-negative}}
  %0 = tg.layer_norm %x epsilon = 0x7FF8000000000000 : tensor<2x8xf32>
  return
}

// -----

func.func @layer_norm_weight_shape(%x: tensor<2x8xf32>, %w: tensor<2xf32>) {
  // expected-error @+1 {{'tg.layer_norm' op weight must be f32[8] (the normalised last dim), got f32[2]}}
  %0 = tg.layer_norm %x weight %w : tensor<2xf32> epsilon = 1.0e-05 : tensor<2x8xf32>
  return
}

// -----

func.func @layer_norm_weight_rank(%x: tensor<2x8xf32>, %w: tensor<2x8xf32>) {
  // expected-error @+1 {{'tg.layer_norm' op weight must be f32[8] (the normalised last dim), got f32[2, 8]}}
  %0 = tg.layer_norm %x weight %w : tensor<2x8xf32> epsilon = 1.0e-05 : tensor<2x8xf32>
  return
}

// -----

func.func @layer_norm_weight_dtype(%x: tensor<2x8xbf16>, %w: tensor<8xf32>) {
  // expected-error @+1 {{'tg.layer_norm' op weight must be bf16[8] (the normalised last dim), got f32[8]}}
  %0 = tg.layer_norm %x weight %w : tensor<8xf32> epsilon = 1.0e-05 : tensor<2x8xbf16>
  return
}

// -----

func.func @layer_norm_bias_shape(%x: tensor<2x8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'tg.layer_norm' op bias must be f32[8] (the normalised last dim), got f32[4]}}
  %0 = tg.layer_norm %x bias %b : tensor<4xf32> epsilon = 1.0e-05 : tensor<2x8xf32>
  return
}

// -----

// With both, the second affine operand is the bias.
func.func @layer_norm_bias_after_weight(%x: tensor<2x8xf16>, %w: tensor<8xf16>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'tg.layer_norm' op bias must be f16[8] (the normalised last dim), got f32[8]}}
  %0 = tg.layer_norm %x weight %w : tensor<8xf16> bias %b : tensor<8xf32> epsilon = 1.0e-05 : tensor<2x8xf16>
  return
}

// -----

func.func @layer_norm_result(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'tg.layer_norm' op failed to verify that all of {input, result} have same type}}
  %0 = "tg.layer_norm"(%x) <{epsilon = 1.0e-05 : f64, operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<2x8xf32>) -> tensor<2x8xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tg.matmul
//===----------------------------------------------------------------------===//

func.func @matmul_k_mismatch(%a: tensor<8x64xf32>, %b: tensor<32x16xf32>) {
  // expected-error @+1 {{'tg.matmul' op contraction dims differ: f32[8, 64] @ f32[32, 16] (K = 64 vs 32)}}
  %0 = tg.matmul %a, %b : tensor<8x64xf32>, tensor<32x16xf32> -> tensor<8x16xf32>
  return
}

// -----

// The transposes are part of the message: [8, 64]^T has K = 8.
func.func @matmul_k_mismatch_transposed(%a: tensor<8x64xf32>, %b: tensor<16x64xf32>) {
  // expected-error @+1 {{'tg.matmul' op contraction dims differ: f32[8, 64]^T @ f32[16, 64]^T (K = 8 vs 64)}}
  %0 = tg.matmul %a, %b transpose_a transpose_b : tensor<8x64xf32>, tensor<16x64xf32> -> tensor<64x16xf32>
  return
}

// -----

func.func @matmul_batch_mismatch(%a: tensor<2x8x16xf32>, %b: tensor<3x16x4xf32>) {
  // expected-error @+1 {{'tg.matmul' op batch dims differ: f32[2, 8, 16] vs f32[3, 16, 4] (they must be equal, or one operand must be rank 2)}}
  %0 = tg.matmul %a, %b : tensor<2x8x16xf32>, tensor<3x16x4xf32> -> tensor<2x8x4xf32>
  return
}

// -----

// No numpy broadcasting of batch dims: [1] is not [2].
func.func @matmul_batch_rank_mismatch(%a: tensor<2x8x16xf32>, %b: tensor<1x2x16x4xf32>) {
  // expected-error @+1 {{'tg.matmul' op batch dims differ}}
  %0 = tg.matmul %a, %b : tensor<2x8x16xf32>, tensor<1x2x16x4xf32> -> tensor<1x2x8x4xf32>
  return
}

// -----

func.func @matmul_rank1(%a: tensor<16xf32>, %b: tensor<16x4xf32>) {
  // expected-error @+1 {{'tg.matmul' op operands must have rank 2 or more, got f32[16] and f32[16, 4]}}
  %0 = tg.matmul %a, %b : tensor<16xf32>, tensor<16x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @matmul_i32(%a: tensor<4x4xi32>, %b: tensor<4x4xi32>) {
  // expected-error @+1 {{'tg.matmul' op needs floating-point operands, got i32}}
  %0 = tg.matmul %a, %b : tensor<4x4xi32>, tensor<4x4xi32> -> tensor<4x4xi32>
  return
}

// -----

func.func @matmul_dtype_mismatch(%a: tensor<4x4xbf16>, %b: tensor<4x4xf16>) {
  // expected-error @+1 {{'tg.matmul' op operands have different dtypes: bf16[4, 4] vs f16[4, 4]}}
  %0 = tg.matmul %a, %b : tensor<4x4xbf16>, tensor<4x4xf16> -> tensor<4x4xbf16>
  return
}

// -----

func.func @matmul_result(%a: tensor<8x64xf32>, %b: tensor<64x32xf32>) {
  // expected-error @+1 {{'tg.matmul' op result type 'tensor<8x32xbf16>' does not match the inferred type 'tensor<8x32xf32>'}}
  %0 = tg.matmul %a, %b : tensor<8x64xf32>, tensor<64x32xf32> -> tensor<8x32xbf16>
  return
}

// -----

// transpose_b: the result is [M, N] = [8, 32], not [8, 64].
func.func @matmul_result_transposed(%a: tensor<8x64xf32>, %b: tensor<32x64xf32>) {
  // expected-error @+1 {{'tg.matmul' op result type 'tensor<8x64xf32>' does not match the inferred type 'tensor<8x32xf32>'}}
  %0 = tg.matmul %a, %b transpose_b : tensor<8x64xf32>, tensor<32x64xf32> -> tensor<8x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tg.fusion
//===----------------------------------------------------------------------===//

func.func @fusion_arg_count(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'tg.fusion' op region has 1 arguments but the op has 2 inputs}}
  %0 = tg.fusion elementwise (%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    tg.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_arg_type(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'tg.fusion' op region argument 1 has type 'tensor<4xf16>' but input 1 is 'tensor<4xf32>'}}
  %0 = tg.fusion elementwise (%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf16>):
    tg.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_yield_types(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tg.fusion' op yields ('tensor<4xf32>') but returns ('tensor<4xbf16>')}}
  %0 = tg.fusion elementwise (%x) : (tensor<4xf32>) -> tensor<4xbf16> {
  ^bb0(%a: tensor<4xf32>):
    tg.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_yield_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tg.fusion' op yields ('tensor<4xf32>') but returns ('tensor<4xf32>', 'tensor<4xf32>')}}
  %0:2 = tg.fusion reduction (%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    tg.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_no_yield(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tg.fusion' op region must end with tg.yield}}
  %0 = tg.fusion elementwise (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %s = tg.add %a, %a : tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_empty_block() {
  // expected-error @+1 {{'tg.fusion' op expects a non-empty block}}
  tg.fusion gemm () : () -> () {
  ^bb0:
  }
  return
}

// -----

func.func @fusion_not_isolated(%x: tensor<4xf32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = tg.fusion elementwise () : () -> tensor<4xf32> {
    // expected-error @+1 {{using value defined outside the region}}
    %s = tg.add %x, %x : tensor<4xf32>
    tg.yield %s : tensor<4xf32>
  }
  return
}

// -----

// Ops inside a fusion are verified like any other.
func.func @fusion_body_verified(%x: tensor<4xi32>) {
  %0 = tg.fusion elementwise (%x) : (tensor<4xi32>) -> tensor<4xi32> {
  ^bb0(%a: tensor<4xi32>):
    // expected-error @+1 {{'tg.exp' op needs a floating-point operand (f32, f16 or bf16), got i32}}
    %e = tg.exp %a : tensor<4xi32>
    tg.yield %e : tensor<4xi32>
  }
  return
}

// -----

func.func @check_needs_i1(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tg.check' op condition must be an i1 tensor, got 'tensor<4xf32>'}}
  tg.check %x id = 1 : tensor<4xf32>
  return
}

// -----

func.func @check_needs_a_positive_id(%c: tensor<4xi1>) {
  // expected-error @+1 {{'tg.check' op id must be positive}}
  tg.check %c id = 0 : tensor<4xi1>
  return
}

// -----

// #tg.matmul (MatmulConfigAttr::verify) and where it may appear.

func.func @matmul_config_on_elementwise(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tg.fusion' op has a matmul configuration but is a elementwise kernel, not a gemm}}
  %0 = tg.fusion elementwise (%x) {matmul = #tg.matmul<path = simt, arch = "sm_80", tile = [32, 32, 16], stages = 0, schedule = none, kmajor_copy = "", reason = "">} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    tg.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @matmul_config_tile(%x: tensor<4xf32>) {
  // expected-error @+1 {{a matmul tile is three positive extents (rows, columns, K-block)}}
  %0 = tg.fusion gemm (%x) {matmul = #tg.matmul<path = simt, arch = "sm_80", tile = [32, 32], stages = 0, schedule = none, kmajor_copy = "", reason = "">} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    tg.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @matmul_config_stages(%x: tensor<4xf32>) {
  // expected-error @+1 {{the mma_sync path needs at least 2 pipeline stages, got 0}}
  %0 = tg.fusion gemm (%x) {matmul = #tg.matmul<path = mma_sync, arch = "sm_80", tile = [64, 64, 32], stages = 0, schedule = none, kmajor_copy = "", reason = "">} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    tg.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @matmul_config_schedule(%x: tensor<4xf32>) {
  // expected-error @+1 {{a schedule (cooperative or pingpong) is given exactly for wgmma}}
  %0 = tg.fusion gemm (%x) {matmul = #tg.matmul<path = mma_sync, arch = "sm_80", tile = [64, 64, 32], stages = 4, schedule = cooperative, kmajor_copy = "", reason = "">} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    tg.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @matmul_config_copy(%x: tensor<4xf32>) {
  // expected-error @+1 {{kmajor_copy is "", "A", "B" or "A, B", not "C"}}
  %0 = tg.fusion gemm (%x) {matmul = #tg.matmul<path = wgmma, arch = "sm_90a", tile = [128, 128, 64], stages = 6, schedule = cooperative, kmajor_copy = "C", reason = "">} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    tg.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @matmul_config_path(%x: tensor<4xf32>) {
  // expected-error @+2 {{expected ::tg::ir::MatmulPath to be one of: wgmma, mma_sync, simt}}
  // expected-error @+1 {{failed to parse Tg_MatmulConfigAttr parameter 'path'}}
  %0 = tg.fusion gemm (%x) {matmul = #tg.matmul<path = fast, arch = "sm_90a", tile = [128, 128, 64], stages = 6, schedule = cooperative, kmajor_copy = "", reason = "">} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    tg.yield %a : tensor<4xf32>
  }
  return
}

// -----

// #tg.buffer (BufferAttr::verify; the kinds are rt::PlanBuffer::Kind's names).

func.func @buffer_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{unknown buffer kind 'scratch' (input, constant, output, arena, alias, check_flag)}}
  // expected-error @+1 {{failed to parse Tg_BufferAttr parameter 'kind'}}
  %0 = tg.neg %x {tg.buffers = [#tg.buffer<kind = scratch, index = -1, offset = 0, bytes = 16>]} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @buffer_index(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{a buffer has an index (>= 0) exactly when it is an input or output, not for 'arena' with index 2}}
  %0 = tg.neg %x {tg.buffers = [#tg.buffer<kind = arena, index = 2, offset = 0, bytes = 16>]} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @buffer_offset(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{only arena buffers have an offset}}
  %0 = tg.neg %x {tg.buffers = [#tg.buffer<kind = output, index = 0, offset = 64, bytes = 16>]} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @gather_float_indices(%t: tensor<10x4xf32>, %i: tensor<3xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{indices must be i32, got f32[3]}}
  %0 = tg.gather %t, %i axis = 0 check = 1 : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @gather_no_site(%t: tensor<10x4xf32>, %i: tensor<3xi32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{needs the id (>= 1) of the check site an index out of range fails}}
  %0 = tg.gather %t, %i axis = 0 check = 0 : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @dynamic_slice_too_wide(%x: tensor<4x8xf32>, %p: tensor<i32>) -> tensor<4x9xf32> {
  // expected-error @+1 {{the window [4, 9] must match f32[4, 8] in every dim but the axis 1, and fit in it}}
  %0 = tg.dynamic_slice %x, %p axis = 1 check = 1 : (tensor<4x8xf32>, tensor<i32>) -> tensor<4x9xf32>
  return %0 : tensor<4x9xf32>
}

// -----

func.func @dynamic_update_slice_two_starts(%x: tensor<4x8xf32>, %u: tensor<4x2xf32>, %p: tensor<2xi32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{the start must be one i32 element, got i32[2]}}
  %0 = tg.dynamic_update_slice %x, %u, %p axis = 1 offsets = [0, 0] check = 1 : (tensor<4x8xf32>, tensor<4x2xf32>, tensor<2xi32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @dynamic_update_slice_outside(%x: tensor<4x8xf32>, %u: tensor<2x2xf32>, %p: tensor<i32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{the update f32[2, 2] at offsets [3, 0] does not fit in f32[4, 8]}}
  %0 = tg.dynamic_update_slice %x, %u, %p axis = 1 offsets = [3, 0] check = 1 : (tensor<4x8xf32>, tensor<2x2xf32>, tensor<i32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
