//===- TgOps.td - tg dialect operations --------------------*- tablegen -*-===//
#ifndef TG_DIALECT_TGOPS_TD
#define TG_DIALECT_TGOPS_TD

include "tg/Dialect/TgBase.td"
include "tg/Dialect/TgAttrs.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Tg_ConstantOp : Tg_Op<"constant", [ConstantLike, Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "a tensor constant";
  let description = [{
    A dense tensor literal. Scalars the user writes next to tensors (`x * 1.5f`) become splat
    constants of the other operand's shape and dtype, which cost nothing in generated code.

    ```mlir
    %c = tg.constant dense<1.5> : tensor<1024xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

class Tg_UnaryOp<string mnemonic, string what, list<Trait> traits = []>
    : Tg_Op<mnemonic, !listconcat([Pure, Elementwise, SameOperandsAndResultType,
                                   Tg_ShapeRules, Tg_SplatFold], traits)> {
  let summary = what;
  let description = "Elementwise " # what # [{. bf16/f16 are computed in f32.

    ```mlir
    %y = tg.}] # mnemonic # [{ %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Tg_Tensor:$input);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Tg_NegOp : Tg_UnaryOp<"neg", "negation (f32, f16, bf16, i32; i32 wraps)", [Involution]>;
def Tg_AbsOp : Tg_UnaryOp<"abs", "absolute value (f32, f16, bf16, i32)">;
def Tg_ExpOp : Tg_UnaryOp<"exp", "exponential (floats)">;
def Tg_LogOp : Tg_UnaryOp<"log", "natural logarithm (floats)">;
def Tg_TanhOp : Tg_UnaryOp<"tanh", "hyperbolic tangent (floats)">;
def Tg_SigmoidOp : Tg_UnaryOp<"sigmoid", "logistic sigmoid 1 / (1 + exp(-x)) (floats)">;
def Tg_ReluOp : Tg_UnaryOp<"relu", "max(x, 0), keeping NaN (f32, f16, bf16, i32)">;
def Tg_SqrtOp : Tg_UnaryOp<"sqrt", "square root (floats)">;
def Tg_RsqrtOp : Tg_UnaryOp<"rsqrt", "reciprocal square root (floats)">;
def Tg_SinOp : Tg_UnaryOp<"sin", "sine (floats)">;
def Tg_CosOp : Tg_UnaryOp<"cos", "cosine (floats)">;
def Tg_ErfOp : Tg_UnaryOp<"erf", "error function (floats)">;
def Tg_Exp2Op : Tg_UnaryOp<"exp2", "2^x (floats)">;
def Tg_Log2Op : Tg_UnaryOp<"log2", "base-2 logarithm (floats)">;
def Tg_FloorOp : Tg_UnaryOp<"floor", "rounding down to an integer value (floats)">;
def Tg_CeilOp : Tg_UnaryOp<"ceil", "rounding up to an integer value (floats)">;
def Tg_RoundOp : Tg_UnaryOp<"round", "rounding to the nearest integer value, halves to even (floats)">;
def Tg_SignOp : Tg_UnaryOp<"sign", "-1, 0 or 1 by the sign of x, NaN kept, -0 gives 0 (f32, f16, bf16, i32)">;
def Tg_SiluOp : Tg_UnaryOp<"silu", "x * sigmoid(x), computed as x / (1 + exp(-x)) (floats)">;

def Tg_GeluOp : Tg_Op<"gelu", [Pure, Elementwise, SameOperandsAndResultType, Tg_ShapeRules,
    Tg_SplatFold]> {
  let summary = "Gaussian error linear unit (floats)";
  let description = [{
    `erf`: 0.5 x (1 + erf(x / sqrt 2)); `tanh`: PyTorch's tanh approximation,
    0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). One op through fusion: kernels
    evaluate it per element (ScalarMath.cpp), as a gemm epilogue too.

    ```mlir
    %y = tg.gelu %x approximate = tanh : tensor<4x8xbf16>
    ```
  }];
  let arguments = (ins Tg_Tensor:$input, Tg_GeluApprox:$approximate);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = "$input `approximate` `=` $approximate attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Elementwise binary
//===----------------------------------------------------------------------===//

class Tg_BinaryOp<string mnemonic, string what, list<Trait> traits = []>
    : Tg_Op<mnemonic, !listconcat([Pure, Elementwise, SameOperandsAndResultType,
                                   Tg_ShapeRules, Tg_SplatFold], traits)> {
  let summary = what;
  let description = "Elementwise " # what # [{. Both operands have the result's type:
    numpy broadcasting is made explicit with `tg.broadcast` before this op.

    ```mlir
    %z = tg.}] # mnemonic # [{ %x, %y : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Tg_Tensor:$lhs, Tg_Tensor:$rhs);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

def Tg_AddOp : Tg_BinaryOp<"add", "addition", [Commutative]> { let hasFolder = 1; }
def Tg_SubOp : Tg_BinaryOp<"sub", "subtraction"> { let hasFolder = 1; }
def Tg_MulOp : Tg_BinaryOp<"mul", "multiplication", [Commutative]> { let hasFolder = 1; }
def Tg_DivOp : Tg_BinaryOp<"div", "division (i32: truncating, x / 0 = 0)"> {
  let hasFolder = 1;
}
def Tg_PowOp : Tg_BinaryOp<"pow", "power lhs^rhs (floats)">;
def Tg_MaximumOp : Tg_BinaryOp<"maximum", "maximum, propagating NaN", [Commutative]>;
def Tg_MinimumOp : Tg_BinaryOp<"minimum", "minimum, propagating NaN", [Commutative]>;

//===----------------------------------------------------------------------===//
// Elementwise: clamp, compare, select, cast
//===----------------------------------------------------------------------===//

def Tg_IotaOp : Tg_Op<"iota", [Pure, Tg_ShapeRules]> {
  let summary = "positions: element (i0, i1, ...) is i_axis";
  let description = [{
    No operands: each element is its own index along `axis`, in the result's element type
    (f32, f16, bf16 or i32; exact up to 2^24 in f32, 256 in bf16, 2048 in f16). Elementwise
    without inputs: computed inside whatever kernel reads it, never stored unless it is a
    result.

    ```mlir
    %p = tg.iota axis = 1 : tensor<8x512xi32>
    ```
  }];
  let arguments = (ins I64Attr:$axis);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = "`axis` `=` $axis attr-dict `:` type($result)";
}

def Tg_SizeOp : Tg_Op<"size", [Pure]> {
  let summary = "the value of a size of the function's symbols, as a scalar";
  let description = [{
    In a function with dynamic dims (`tg.symbols`), a number computed from the sizes: the
    decoder's next position `pos + T` adds the prompt length T. One size (#tg.sizes of one
    entry) that depends on a symbol; the result is a 0-d tensor of a numeric type (i32, f32,
    f16, bf16), broadcast where more elements need it.

    ```mlir
    %t = tg.size #tg.sizes<[T]> as tensor<i32>
    ```
  }];
  let arguments = (ins Tg_SizesAttr:$value);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = "qualified($value) `as` type($result) attr-dict";
  let hasVerifier = 1;
}

def Tg_ConcatOp : Tg_Op<"concat", [Pure, Tg_ShapeRules]> {
  let summary = "operands joined along one axis";
  let description = [{
    The operands (one dtype, equal extents but along `axis`) one after another along `axis`.
    Computed per element in an elementwise kernel: element i reads one operand at i minus that
    operand's offset, so the operands are read from memory (a producer is a kernel of its own)
    while the consumers fuse.

    ```mlir
    %r = tg.concat %a, %b axis = 1 : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x64xf32>
    ```
  }];
  let arguments = (ins Variadic<Tg_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = "$inputs `axis` `=` $axis attr-dict `:` functional-type($inputs, $result)";
  let hasFolder = 1;
}

def Tg_GatherOp : Tg_Op<"gather", [Pure, Tg_ShapeRules]> {
  let summary = "elements of the input at i32 indices along one axis (an embedding lookup)";
  let description = [{
    result[p, j..., q] = input[p, indices[j...], q], where p are the dims before `axis` and q
    those after it: the result's shape is the input's with `axis` replaced by the indices'
    shape. An index outside [0, extent) fails check site `check` (reported at the host's next
    sync point, as a failed tg.check) and reads the nearest valid element: never out of
    bounds. Computed per element in an elementwise kernel: both operands are read from memory
    (their producers are kernels of their own) while the consumers fuse.

    ```mlir
    %e = tg.gather %table, %tokens axis = 0 check = 1
           : (tensor<32000x2048xbf16>, tensor<8xi32>) -> tensor<8x2048xbf16>
    ```
  }];
  let arguments = (ins Tg_Tensor:$input, Tg_Tensor:$indices, I64Attr:$axis, I64Attr:$check);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $indices `axis` `=` $axis `check` `=` $check attr-dict `:`
    functional-type(operands, results)
  }];
}

def Tg_DynamicSliceOp : Tg_Op<"dynamic_slice", [Pure, Tg_ShapeRules]> {
  let summary = "a window along one axis from a start held in a device tensor";
  let description = [{
    The result's extent of elements of `axis` from position `start[0]` (an i32 tensor of one
    element, read on the device: no recompile per position); every other dim whole. A start
    outside [0, extent - window] fails check site `check` and is clamped to that range, as in
    XLA: never out of bounds.

    ```mlir
    %w = tg.dynamic_slice %cache, %pos axis = 1 check = 2
           : (tensor<4x640x128xbf16>, tensor<i32>) -> tensor<4x1x128xbf16>
    ```
  }];
  let arguments = (ins Tg_Tensor:$input, Tg_Tensor:$start, I64Attr:$axis, I64Attr:$check);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $start `axis` `=` $axis `check` `=` $check attr-dict `:`
    functional-type(operands, results)
  }];
}

def Tg_DynamicUpdateSliceOp : Tg_Op<"dynamic_update_slice", [Pure, Tg_ShapeRules]> {
  let summary = "the input with an update written along one axis from a device-side start";
  let description = [{
    The input, with `update` (same rank and dtype) written at position `start[0]` of `axis`
    (an i32 tensor of one element, read on the device) and at the static `offsets` of the
    other dims (offsets[axis] is 0). A start outside [0, extent - update extent] fails check
    site `check` and is clamped, as in XLA. A kernel of its own (the fuser keeps producers
    and consumers out, so that a later tg-assign-buffers can give the result the input's
    buffer where the input is dead after it); today it is computed per element as a copy.

    ```mlir
    %c = tg.dynamic_update_slice %cache, %k, %pos axis = 1 offsets = [0, 0, 0] check = 3
           : (tensor<4x640x128xbf16>, tensor<4x1x128xbf16>, tensor<i32>) -> tensor<4x640x128xbf16>
    ```
  }];
  let arguments = (ins Tg_Tensor:$input, Tg_Tensor:$update, Tg_Tensor:$start, I64Attr:$axis,
                       DenseI64ArrayAttr:$offsets, I64Attr:$check, OptionalAttr<Tg_SizesAttr>:$sym_offsets);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $update `,` $start `axis` `=` $axis `offsets` `=` custom<SymbolicList>($offsets, $sym_offsets)
    `check` `=` $check attr-dict `:` functional-type(operands, results)
  }];
}

def Tg_ClampOp : Tg_Op<"clamp", [Pure, Elementwise, SameOperandsAndResultType, Tg_ShapeRules,
    Tg_SplatFold]> {
  let summary = "minimum(maximum(x, lo), hi), propagating NaN (f32, f16, bf16, i32)";
  let description = [{
    Bounds every element of `input` by `lo` below and `hi` above, as PyTorch's clamp: where
    lo > hi the result is hi. All three operands have the result's type (scalar bounds are
    splat constants).

    ```mlir
    %y = tg.clamp %x, %lo, %hi : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Tg_Tensor:$input, Tg_Tensor:$lo, Tg_Tensor:$hi);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = "$input `,` $lo `,` $hi attr-dict `:` type($result)";
}

def Tg_CmpOp : Tg_Op<"cmp", [Pure, Elementwise, SameTypeOperands, Tg_ShapeRules, Tg_SplatFold,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "elementwise comparison, giving an i1 tensor";
  let description = [{
    Compares two tensors of one type. Comparisons with NaN are false, except `ne`.

    ```mlir
    %m = tg.cmp lt, %x, %y : tensor<16xf32>
    ```
  }];
  let arguments = (ins Tg_CmpPredicate:$predicate, Tg_Tensor:$lhs, Tg_Tensor:$rhs);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = "$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs)";
}

def Tg_SelectOp : Tg_Op<"select", [Pure, Elementwise, Tg_ShapeRules, Tg_SplatFold,
    AllTypesMatch<["true_value", "false_value", "result"]>]> {
  let summary = "elementwise choice: condition ? true_value : false_value";
  let description = [{
    ```mlir
    %r = tg.select %m, %x, %y : tensor<16xi1>, tensor<16xf32>
    ```
  }];
  let arguments = (ins Tg_Tensor:$condition, Tg_Tensor:$true_value, Tg_Tensor:$false_value);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:` type($condition) `,` type($result)
  }];
  let hasFolder = 1;
}

def Tg_CastOp : Tg_Op<"cast", [Pure, Elementwise, Tg_ShapeRules, Tg_SplatFold]> {
  let summary = "elementwise element-type conversion";
  let description = [{
    Floats round to nearest-even; float to i32 truncates toward zero and saturates (NaN: 0);
    anything to i1 is `x != 0`.

    ```mlir
    %h = tg.cast %x : tensor<16xf32> to tensor<16xbf16>
    ```
  }];
  let arguments = (ins Tg_Tensor:$input);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

def Tg_BroadcastOp : Tg_Op<"broadcast", [Pure, Tg_ShapeRules]> {
  let summary = "explicit broadcast to a larger shape";
  let description = [{
    Operand dim `i` maps to result dim `dims[i]` (strictly increasing) and must be 1 or equal
    to it; other result dims are new. Numpy broadcasting of a `[4]` vector against `[3, 4]`:

    ```mlir
    %b = tg.broadcast %v dims = [1] : tensor<4xf32> to tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Tg_Tensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = "$input `dims` `=` $dims attr-dict `:` type($input) `to` type($result)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tg_ReshapeOp : Tg_Op<"reshape", [Pure, Tg_ShapeRules]> {
  let summary = "same elements, row-major, another shape";
  let description = [{
    ```mlir
    %r = tg.reshape %x : tensor<12xf32> to tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Tg_Tensor:$input);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasFolder = 1;
}

def Tg_TransposeOp : Tg_Op<"transpose", [Pure, Tg_ShapeRules]> {
  let summary = "permutes dims: result dim i is operand dim perm[i]";
  let description = [{
    ```mlir
    %t = tg.transpose %x perm = [1, 0] : tensor<3x4xf32> to tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Tg_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = "$input `perm` `=` $perm attr-dict `:` type($input) `to` type($result)";
  let hasFolder = 1;
  // A transpose that moves only dims of extent 1 keeps the elements in order: a reshape.
  let hasCanonicalizer = 1;
}

def Tg_SliceOp : Tg_Op<"slice", [Pure, Tg_ShapeRules]> {
  let summary = "a strided window: result[i] = input[starts + i * steps]";
  let description = [{
    Per dim, elements `starts[d]`, `starts[d] + steps[d]`, ... below `limits[d]`
    (0 <= start <= limit <= extent, step >= 1). A layout op: consumers read the input through
    the index map, so a slice costs no kernel unless a matmul or the function result needs it
    in memory.

    ```mlir
    %q = tg.slice %qkv starts = [0, 0] limits = [8, 64] steps = [1, 1]
           : tensor<8x192xbf16> to tensor<8x64xbf16>
    ```

    In a function with dynamic dims a bound may be a size of its symbols (`limits = [T, 64]`,
    `starts = [T - 1, 0]`): the integer array then holds `?` (ShapedType::kDynamic) there and
    `sym_starts`, `sym_limits` or `sym_steps` every entry's size (tg/Dialect/SymbolicTypes.h).
  }];
  let arguments = (ins Tg_Tensor:$input, DenseI64ArrayAttr:$starts, DenseI64ArrayAttr:$limits,
                       DenseI64ArrayAttr:$steps, OptionalAttr<Tg_SizesAttr>:$sym_starts,
                       OptionalAttr<Tg_SizesAttr>:$sym_limits, OptionalAttr<Tg_SizesAttr>:$sym_steps);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = [{
    $input `starts` `=` custom<SymbolicList>($starts, $sym_starts)
    `limits` `=` custom<SymbolicList>($limits, $sym_limits)
    `steps` `=` custom<SymbolicList>($steps, $sym_steps) attr-dict `:`
    type($input) `to` type($result)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Tg_ReduceOp<string mnemonic, string what>
    : Tg_Op<mnemonic, [Pure, Tg_ShapeRules]> {
  let summary = what # " over the given axes";
  let description = what # [{ over `axes` (strictly increasing). Reduced dims are dropped,
    or kept with extent 1 under `keep_dims`. Floats accumulate in f32 or better.

    ```mlir
    %s = tg.}] # mnemonic # [{ %x axes = [1] : tensor<3x4xf32> to tensor<3xf32>
    %k = tg.}] # mnemonic # [{ %x axes = [1] keep_dims : tensor<3x4xf32> to tensor<3x1xf32>
    ```
  }];
  let arguments = (ins Tg_Tensor:$input, DenseI64ArrayAttr:$axes, UnitAttr:$keep_dims);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = [{
    $input `axes` `=` $axes (`keep_dims` $keep_dims^)? attr-dict `:` type($input) `to`
    type($result)
  }];
  let hasFolder = 1;
}

def Tg_ReduceSumOp : Tg_ReduceOp<"reduce_sum", "sum (f32, f16, bf16, i32)">;
def Tg_ReduceMaxOp : Tg_ReduceOp<"reduce_max", "maximum, propagating NaN">;
def Tg_ReduceMeanOp : Tg_ReduceOp<"reduce_mean", "arithmetic mean (floats)">;
def Tg_ReduceMinOp : Tg_ReduceOp<"reduce_min", "minimum, propagating NaN">;
def Tg_ReduceProdOp : Tg_ReduceOp<"reduce_prod", "product (f32, f16, bf16, i32; i32 wraps)">;

class Tg_ArgReduceOp<string mnemonic, string what>
    : Tg_Op<mnemonic, [Pure, Tg_ShapeRules]> {
  let summary = "the i32 index of the " # what # " along one axis";
  let description = [{
    The index along `axes` (exactly one axis, not empty) of the }] # what # [{ element,
    ties going to the lowest index, as PyTorch. NaN counts as the extreme: the index of the
    first NaN. -0 and +0 are equal. The axis is dropped, or kept with extent 1 under
    `keep_dims`.

    ```mlir
    %i = tg.}] # mnemonic # [{ %x axes = [1] : tensor<3x4xf32> to tensor<3xi32>
    ```
  }];
  let arguments = (ins Tg_Tensor:$input, DenseI64ArrayAttr:$axes, UnitAttr:$keep_dims);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = [{
    $input `axes` `=` $axes (`keep_dims` $keep_dims^)? attr-dict `:` type($input) `to`
    type($result)
  }];
}

def Tg_ArgMaxOp : Tg_ArgReduceOp<"argmax", "largest">;
def Tg_ArgMinOp : Tg_ArgReduceOp<"argmin", "smallest">;

//===----------------------------------------------------------------------===//
// Composites
//===----------------------------------------------------------------------===//

def Tg_SoftmaxOp : Tg_Op<"softmax", [Pure, SameOperandsAndResultType, Tg_ShapeRules]> {
  let summary = "softmax along one axis";
  let description = [{
    exp(x - max) / sum(exp(x - max)) along `axis`. Decomposed into reductions and elementwise
    ops before fusion.

    ```mlir
    %p = tg.softmax %x axis = 1 : tensor<8x128xf32>
    ```
  }];
  let arguments = (ins Tg_Tensor:$input, I64Attr:$axis);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = "$input `axis` `=` $axis attr-dict `:` type($result)";
}

def Tg_LayerNormOp : Tg_Op<"layer_norm", [Pure, AttrSizedOperandSegments, Tg_ShapeRules,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "layer normalisation over the last dim, with optional weight and bias";
  let description = [{
    (x - mean) / sqrt(var + epsilon) * weight + bias over the last dim (biased variance, as
    PyTorch). `weight` and `bias` are rank-1 tensors of the last dim's extent.

    ```mlir
    %y = tg.layer_norm %x weight %w : tensor<512xf32> bias %b : tensor<512xf32>
           epsilon = 1.0e-05 : tensor<8x512xf32>
    ```
  }];
  let arguments = (ins Tg_Tensor:$input, Optional<Tg_Tensor>:$weight,
                       Optional<Tg_Tensor>:$bias, F64Attr:$epsilon);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^ `:` type($weight))? (`bias` $bias^ `:` type($bias))?
    `epsilon` `=` $epsilon attr-dict `:` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Contraction
//===----------------------------------------------------------------------===//

def Tg_MatmulOp : Tg_Op<"matmul", [Pure, Tg_ShapeRules]> {
  let summary = "(batched) matrix product";
  let description = [{
    `a[..., M, K] @ b[..., K, N]`; `transpose_a` / `transpose_b` use the transpose of an
    operand's last two dims instead. Batch dims are equal, or one operand is rank 2 and shared
    by every batch. Floats only; bf16/f16 accumulate in f32, f32 uses tf32 on tensor cores
    unless the full-precision option is set.

    ```mlir
    %y = tg.matmul %x, %w transpose_b : tensor<8x64xbf16>, tensor<32x64xbf16> -> tensor<8x32xbf16>
    ```
  }];
  let arguments = (ins Tg_Tensor:$a, Tg_Tensor:$b, UnitAttr:$transpose_a,
                       UnitAttr:$transpose_b);
  let results = (outs Tg_Tensor:$result);
  let assemblyFormat = [{
    $a `,` $b (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)? attr-dict `:`
    type($a) `,` type($b) `->` type($result)
  }];
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Asynchronous checks
//===----------------------------------------------------------------------===//

def Tg_CheckOp : Tg_Op<"check", [MemoryEffects<[MemWrite]>]> {
  let summary = "asynchronous check: every element of the condition must be true";
  let description = [{
    Records a failure of check `id` (a site registered by tg::check, with its message and
    source line) when any element of `condition` is false. Nothing waits for it: the host
    raises the failure at its next sync point. Kept by every pass (it writes memory).

    ```mlir
    tg.check %ok id = 3 : tensor<1024xi1>
    ```
  }];
  let arguments = (ins Tg_Tensor:$condition, I64Attr:$id);
  let assemblyFormat = "$condition `id` `=` $id attr-dict `:` type($condition)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

def Tg_FusionOp : Tg_Op<"fusion", [IsolatedFromAbove, SingleBlock,
    RecursiveMemoryEffects]> {
  let summary = "a group of ops that becomes one kernel";
  let description = [{
    Built by the fusion pass. The region is isolated: the group's inputs come in as block
    arguments and its outputs leave through `tg.yield`. `kind` names what the kernel is built
    around (elementwise, a reduction, a GEMM with its epilogue, or a tg.check). A gemm
    fusion gets its kernel's `matmul` configuration from tg-select-matmul.

    ```mlir
    %r = tg.fusion elementwise (%x, %y) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32> {
    ^bb0(%a: tensor<16xf32>, %b: tensor<16xf32>):
      %s = tg.add %a, %b : tensor<16xf32>
      %t = tg.tanh %s : tensor<16xf32>
      tg.yield %t : tensor<16xf32>
    }
    ```
  }];
  let arguments = (ins Tg_FusionKind:$kind, Variadic<Tg_Tensor>:$inputs,
                       OptionalAttr<Tg_MatmulConfigAttr>:$matmul);
  let results = (outs Variadic<Tg_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let builders = [
    // What the fuser builds: no matmul configuration yet.
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "FusionKind":$kind,
                   "::mlir::ValueRange":$inputs), [{
      build($_builder, $_state, resultTypes, kind, inputs, /*matmul=*/nullptr);
    }]>
  ];
  let assemblyFormat = [{
    $kind `(` $inputs `)` attr-dict `:` functional-type($inputs, $results) $body
  }];
  let hasVerifier = 1;
}

def Tg_YieldOp : Tg_Op<"yield", [Pure, Terminator, ReturnLike, HasParent<"FusionOp">]> {
  let summary = "the outputs of a tg.fusion region";
  let description = [{
    ```mlir
    tg.yield %a, %b : tensor<16xf32>, tensor<16xbf16>
    ```
  }];
  let arguments = (ins Variadic<Tg_Tensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // TG_DIALECT_TGOPS_TD
