//===- TgBase.td - The tg dialect, its types and enums -----*- tablegen -*-===//
//
// tg describes tensor graphs traced from C++ lambdas: static shapes, five element types, and
// ops at the level of PyTorch's (elementwise math, reductions, layout changes, matmul), plus the
// structural `tg.fusion` op the fuser builds. Shape and dtype rules live in one MLIR-free place,
// tg/Graph/ShapeRules.h, which every op's verifier calls (the TgShapeRules trait).
//
//===----------------------------------------------------------------------===//
#ifndef TG_DIALECT_TGBASE_TD
#define TG_DIALECT_TGBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/CommonTypeConstraints.td"

def Tg_Dialect : Dialect {
  let name = "tg";
  let cppNamespace = "::tg::ir";
  let summary = "Tensor graphs traced from C++ lambdas, fused and lowered to CUDA by tg";
  let description = [{
    Values are statically shaped ranked tensors of f32, f16, bf16, i32 or i1, of at most 2^48
    bytes each (zero extents counted as 1), and so are a function's arguments and results;
    zero-size tensors are allowed (their kernels are not launched). Elementwise ops
    take operands of one type (the importer inserts explicit `tg.broadcast` ops for numpy
    broadcasting, and splat `tg.constant`s for scalars). Composite ops (softmax, layer_norm)
    are decomposed into primitives before fusion; gelu stays one op. `tg.fusion` holds one kernel's worth of
    ops in an isolated region.
  }];
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 1;
  // tg.symbols on a function: an array of #tg.symbol of distinct names.
  let hasOperationAttrVerify = 1;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

// A tg tensor: a static shape, one of five element types, no encoding, and at most 2^48 bytes
// (tg::kMaxTensorBytes in tg/Support/DType.h, zero extents counted as 1), so that element counts,
// indices and byte offsets fit in int64 wherever code generation multiplies them.
// `tg::ir::typeOf` is the same test in C++. Or, in a function with dynamic dims (issue 18, not
// compiled yet), `?` where a size depends on the function's symbols, with every dim's size in
// a #tg.sizes encoding (tg/Dialect/SymbolicTypes.h; the shape-rule verifier checks that the
// encoding agrees with the shape, with a message that says how).
def Tg_Tensor : RankedTensorOf<[F32, F16, BF16, I32, I1],
    [CPred<"::tg::ir::typeOf($_self).has_value() || ::tg::ir::isSymbolic($_self)">],
    "statically shaped tensor (no encoding, at most 2^48 bytes), or one with dynamic dims described by #tg.sizes">;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Tg_CmpPredicate : I64EnumAttr<"CmpPredicate", "comparison predicate", [
    I64EnumAttrCase<"eq", 0>,
    I64EnumAttrCase<"ne", 1>,
    I64EnumAttrCase<"lt", 2>,
    I64EnumAttrCase<"le", 3>,
    I64EnumAttrCase<"gt", 4>,
    I64EnumAttrCase<"ge", 5>,
  ]> {
  let cppNamespace = "::tg::ir";
}

def Tg_GeluApprox : I64EnumAttr<"GeluApprox", "GELU formula", [
    I64EnumAttrCase<"erf", 0>,
    I64EnumAttrCase<"tanh", 1>,
  ]> {
  let cppNamespace = "::tg::ir";
}

def Tg_FusionKind : I64EnumAttr<"FusionKind", "what a fused kernel is built around", [
    I64EnumAttrCase<"elementwise", 0>,
    I64EnumAttrCase<"reduction", 1>,
    I64EnumAttrCase<"gemm", 2>,
    I64EnumAttrCase<"check", 3>,
    // Reductions over the trailing dims of one shape together with the elementwise ops that
    // produce their inputs and those that read their results broadcast back over the rows
    // (softmax, layer_norm, RMSNorm): tg-fuse with fuse-reductions=true.
    I64EnumAttrCase<"row", 4>,
    // softmax(modify(q @ k^T)) @ v for a few query rows per head: the scores, their modifier
    // (scale, mask, bias), the softmax and the product with v in one kernel (tg-fuse-attention).
    I64EnumAttrCase<"attention", 5>,
  ]> {
  let cppNamespace = "::tg::ir";
}

def Tg_MatmulPath : I64EnumAttr<"MatmulPath", "the kernel a gemm fusion runs", [
    I64EnumAttrCase<"wgmma", 0>,
    I64EnumAttrCase<"mma_sync", 1>,
    I64EnumAttrCase<"simt", 2>,
    I64EnumAttrCase<"gemv", 3>,
    I64EnumAttrCase<"gemv_mma", 4>,
  ]> {
  let cppNamespace = "::tg::ir";
}

def Tg_GemmSchedule : I64EnumAttr<"GemmSchedule", "how a wgmma kernel's consumers share tiles", [
    I64EnumAttrCase<"none", 0>,
    I64EnumAttrCase<"cooperative", 1>,
    I64EnumAttrCase<"pingpong", 2>,
  ]> {
  let cppNamespace = "::tg::ir";
}

//===----------------------------------------------------------------------===//
// Traits and the base op class
//===----------------------------------------------------------------------===//

// Verifies an op against tg/Graph/ShapeRules.h (the rules the frontend applies while tracing).
def Tg_ShapeRules : NativeOpTrait<"TgShapeRules"> {
  let cppNamespace = "::tg::ir::OpTrait";
}

// Folds the op when every operand is a splat constant, by running the reference kernel on one
// element: folding can never disagree with execution.
def Tg_SplatFold : NativeOpTrait<"TgSplatFold"> {
  let cppNamespace = "::tg::ir::OpTrait";
}

class Tg_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tg_Dialect, mnemonic, traits>;

#endif // TG_DIALECT_TGBASE_TD
