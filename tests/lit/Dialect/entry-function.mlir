// RUN: tg-opt %s -split-input-file -verify-diagnostics --tg-fuse
// RUN: tg-opt %s -split-input-file -verify-diagnostics --tg-assign-buffers
//
// ir::verifyTgFunction (tg/Dialect/EntryFunction.h): MLIR verifies tg ops, but nothing in
// MLIR checks the func.func around them. tg-fuse and tg-assign-buffers walk the whole body and check it
// first; compiler::compile and tgc check the module (one such function) before any pass. Each
// case here used to crash (SIGSEGV in EmitPlan) or plan wrong buffers.

// expected-error @+1 {{'func.func' op argument 0 is not a tg tensor: tensor<*xf32> is not a ranked tensor}}
func.func @unranked_argument(%x: tensor<*xf32>) {
  return
}

// -----

// An i64 argument used to be planned as a 16-byte input.
// expected-error @+1 {{'func.func' op argument 0 is not a tg tensor: tensor<4xi64> does not have a tg element type (f32, f16, bf16, i32 or i1)}}
func.func @i64_argument(%x: tensor<4xi64>) -> tensor<4xi64> {
  return %x : tensor<4xi64>
}

// -----

// 2^64 elements returned untouched: no tg op verifies the type.
// expected-error @+1 {{'func.func' op argument 0 is not a tg tensor: tensor<4294967296x4294967296xf32>: f32[4294967296, 4294967296] takes more than 2^48 bytes, tg's limit for one tensor}}
func.func @past_the_size_limit(%x: tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  return %x : tensor<4294967296x4294967296xf32>
}

// -----

// expected-error @+1 {{'func.func' op argument 0 is not a tg tensor: tensor<4xf32, "sparse"> has an encoding, which tg does not support}}
func.func @encoded_argument(%x: tensor<4xf32, "sparse">) {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument 0 is not a tg tensor: f32 is not a ranked tensor}}
func.func @scalar_argument(%x: f32) {
  return
}

// -----

func.func private @callee(%x: tensor<4xf32>) -> tensor<4xf32>

func.func @foreign_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'func.call' op is not a tg op: a tg function holds tg ops and its func.return}}
  %0 = func.call @callee(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op must have a body of one block}}
func.func @two_blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
^bb1:
  return %x : tensor<4xf32>
}

// -----

// A declaration alone is left alone by the passes (tgc and compile() refuse it: see
// Tools/tgc-front-door.mlir).
func.func private @declaration(%x: tensor<4xf32>) -> tensor<4xf32>

// -----

// Dynamic dims pass the door (a function with tg.symbols: tests/lit/Transforms/fuse-symbolic.mlir);
// a #tg.sizes type needs the function's tg.symbols.

// -----

// An argument with dynamic dims in a function without tg.symbols.
// expected-error @+1 {{'func.func' op argument 0 is not a tg tensor: tensor<?x16xf32, #tg.sizes<[batch, 16]>> has dynamic dims (#tg.sizes): only values in a function with tg.symbols may}}
func.func @dynamic_argument(%x: tensor<?x16xf32, #tg.sizes<[batch, 16]>>) {
  return
}
