//===- ScalarMath.h - One element of each tg op, as CUDA C++ (internal) ---===//
//
// The generated code computes in f32 for every floating dtype (int for i32, bool for i1);
// loads and stores convert to and from storage. Inside a kernel, intermediates stay in f32:
// a bf16/f16 value is rounded when it is stored (or explicitly cast), as torch.compile and XLA
// do. So fused f32 kernels agree bit for bit with unfused ones, and fused bf16/f16 kernels are
// at least as accurate as op-by-op execution, which rounds after every op.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Graph/OpKind.h"
#include "tg/Support/Precision.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <string>
#include <vector>

namespace tg::codegen {

/// C type of a dtype in memory ("float", "tg_bf16", ...) and in registers ("float", "int",
/// "bool").
const char* storageType(DType dtype);
const char* computeType(DType dtype);
/// Converts a storage value to its compute value, and back.
std::string loadConvert(DType dtype, const std::string& storage);
std::string storeConvert(DType dtype, const std::string& value);

/// The C expression for one element of `kind` applied to `operands` (compute values of
/// `operandDType`), producing `resultDType` (in f32 for floats: only casts round). Iota takes
/// one operand: the element's index along its axis (an index expression).
std::string scalarExpr(graph::OpKind kind, const graph::OpAttrs& attrs,
                       const std::vector<std::string>& operands, DType operandDType,
                       DType resultDType, Precision precision);

/// How a reduction accumulates in generated code: reduction.cuh and columns.cuh (TgBody's
/// init, combine, load and store) and the row kernels (EmitRow.cpp) write it from this.
struct ReductionCode {
  std::string acc;       ///< the accumulator's C type: "float", "int", "unsigned long long"
  std::string identity;  ///< the accumulator's initial value
  std::string functor;   ///< the combining functor of row.cuh ("TgSumF", "TgMaxKey", ...)
  std::string combineFn; ///< the combining function: combineFn(a, b)
  bool arg = false, argMin = false;
  bool mean = false;
  /// The accumulated form of element `x` at reduced index `r` (argmax/argmin: its key).
  std::string element(const std::string& x, const std::string& r) const;
  /// The result (a compute value) from accumulator `acc` of `count` elements.
  std::string finish(const std::string& acc, int64_t count) const;
  std::string combine(const std::string& a, const std::string& b) const {
    return combineFn + "(" + a + ", " + b + ")";
  }
};
/// The code of reduction `kind` over elements of `input` (a float dtype or i32).
ReductionCode reductionCode(graph::OpKind kind, DType input);

/// The splat value of a dense constant as an exact C literal of its compute type.
std::string splatLiteral(mlir::DenseElementsAttr splat, DType dtype);

}  // namespace tg::codegen
