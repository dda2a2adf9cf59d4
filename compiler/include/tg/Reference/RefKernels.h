//===- RefKernels.h - What every tg op means, evaluated on the CPU --------===//
//
// The reference semantics of tg. Eager CPU execution calls evaluate() directly; the MLIR
// interpreter (Interpreter.h) maps each tg op to (kind, attrs) and calls it too, so there is one
// definition of every op. Numerics, which the generated GPU code follows:
//  - bf16/f16 elements are widened to f32 exactly, computed in f32 with the C library's
//    functions (expf, tanhf, erff, ...), and rounded back to nearest-even.
//  - reductions (sum, mean), softmax's and layer_norm's statistics and matmul accumulate in
//    f64 and round once at the end: the oracle is more accurate than any GPU order of summation.
//  - NaN propagates through maximum/minimum/clamp/reduce_max/reduce_min; relu(NaN) and
//    sign(NaN) are NaN; argmax/argmin return the first NaN's index, else the first extreme's.
//  - reduce_prod of floats multiplies in f64 like the sums, i32 products wrap.
//  - i32 arithmetic wraps; x / 0 is 0 and INT_MIN / -1 is INT_MIN (no trap); casts from float
//    to i32 truncate toward zero and saturate, NaN gives 0; to bool a value is true when != 0.
// MLIR-free.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Graph/OpKind.h"
#include "tg/Reference/HostTensor.h"

#include <span>

namespace tg::ref {

/// Evaluates one op on host tensors and returns its result. The operand types must satisfy
/// graph::inferResultType (callers check first); Input and Constant are not evaluated here.
HostTensor evaluate(graph::OpKind kind, const graph::OpAttrs& attrs,
                    std::span<const HostTensor> operands);

/// The scalar functions behind the elementwise ops, in f32 (shared with tests).
float unaryFloat(graph::OpKind kind, graph::GeluApprox gelu, float x);
float binaryFloat(graph::OpKind kind, float a, float b);
int32_t unaryInt(graph::OpKind kind, int32_t x);
int32_t binaryInt(graph::OpKind kind, int32_t a, int32_t b);

// Families, one file each.
HostTensor evaluateElementwise(graph::OpKind kind, const graph::OpAttrs& attrs,
                               std::span<const HostTensor> operands);
/// Gather, dynamic_slice, dynamic_update_slice: an index out of range fails the op's check site
/// (tg::CheckSites) and is clamped into range.
HostTensor evaluateIndexed(graph::OpKind kind, const graph::OpAttrs& attrs,
                           std::span<const HostTensor> operands);
HostTensor evaluateLayout(graph::OpKind kind, const graph::OpAttrs& attrs, const HostTensor& x);
HostTensor evaluateReduction(graph::OpKind kind, const graph::OpAttrs& attrs,
                             const HostTensor& x);
HostTensor evaluateArgReduction(graph::OpKind kind, const graph::OpAttrs& attrs,
                                const HostTensor& x);
HostTensor evaluateSoftmax(const graph::OpAttrs& attrs, const HostTensor& x);
HostTensor evaluateLayerNorm(const graph::OpAttrs& attrs, std::span<const HostTensor> operands);
HostTensor evaluateMatmul(const graph::OpAttrs& attrs, const HostTensor& a, const HostTensor& b);

}  // namespace tg::ref
