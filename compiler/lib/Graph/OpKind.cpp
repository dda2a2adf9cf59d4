//===- OpKind.cpp - Names and classes of tg op kinds ----------------------===//
#include "tg/Graph/OpKind.h"

#include <cstdio>

namespace tg::graph {

std::string_view opName(OpKind kind) {
  switch (kind) {
    case OpKind::Input: return "input";
    case OpKind::Constant: return "constant";
    case OpKind::Neg: return "neg";
    case OpKind::Abs: return "abs";
    case OpKind::Exp: return "exp";
    case OpKind::Log: return "log";
    case OpKind::Tanh: return "tanh";
    case OpKind::Sigmoid: return "sigmoid";
    case OpKind::Relu: return "relu";
    case OpKind::Gelu: return "gelu";
    case OpKind::Sqrt: return "sqrt";
    case OpKind::Rsqrt: return "rsqrt";
    case OpKind::Sin: return "sin";
    case OpKind::Cos: return "cos";
    case OpKind::Erf: return "erf";
    case OpKind::Exp2: return "exp2";
    case OpKind::Log2: return "log2";
    case OpKind::Floor: return "floor";
    case OpKind::Ceil: return "ceil";
    case OpKind::Round: return "round";
    case OpKind::Sign: return "sign";
    case OpKind::Silu: return "silu";
    case OpKind::Add: return "add";
    case OpKind::Sub: return "sub";
    case OpKind::Mul: return "mul";
    case OpKind::Div: return "div";
    case OpKind::Pow: return "pow";
    case OpKind::Maximum: return "maximum";
    case OpKind::Minimum: return "minimum";
    case OpKind::Iota: return "iota";
    case OpKind::Concat: return "concat";
    case OpKind::Gather: return "gather";
    case OpKind::DynamicSlice: return "dynamic_slice";
    case OpKind::DynamicUpdateSlice: return "dynamic_update_slice";
    case OpKind::Clamp: return "clamp";
    case OpKind::Compare: return "cmp";
    case OpKind::Select: return "select";
    case OpKind::Cast: return "cast";
    case OpKind::Broadcast: return "broadcast";
    case OpKind::Reshape: return "reshape";
    case OpKind::Transpose: return "transpose";
    case OpKind::Slice: return "slice";
    case OpKind::ReduceSum: return "reduce_sum";
    case OpKind::ReduceMax: return "reduce_max";
    case OpKind::ReduceMean: return "reduce_mean";
    case OpKind::ReduceMin: return "reduce_min";
    case OpKind::ReduceProd: return "reduce_prod";
    case OpKind::ArgMax: return "argmax";
    case OpKind::ArgMin: return "argmin";
    case OpKind::Softmax: return "softmax";
    case OpKind::LayerNorm: return "layer_norm";
    case OpKind::Matmul: return "matmul";
    case OpKind::Check: return "check";
  }
  return "?";
}

static void appendInts(std::string& s, const std::vector<int64_t>& v) {
  s += '[';
  for (int64_t x : v) s += std::to_string(x) + ',';
  s += ']';
}

// A new field of OpAttrs changes its size: add it below, then update the size.
static_assert(sizeof(OpAttrs) == 7 * sizeof(std::vector<int64_t>) + 40, "OpAttrs changed: key every field");

void appendAttrsKey(std::string& s, const OpAttrs& a) {
  appendInts(s, a.axes);
  appendInts(s, a.perm);
  appendInts(s, a.dims);
  appendInts(s, a.shape);
  appendInts(s, a.starts);
  appendInts(s, a.limits);
  appendInts(s, a.steps);
  char epsilon[40];
  std::snprintf(epsilon, sizeof(epsilon), "%a", a.epsilon);
  s += std::to_string(a.keepDims) + std::to_string(static_cast<int>(a.predicate)) +
       std::to_string(static_cast<int>(a.dtype)) + std::to_string(static_cast<int>(a.gelu)) + "," +
       std::to_string(a.axis) + "," + epsilon + std::to_string(a.hasWeight) + std::to_string(a.hasBias) +
       std::to_string(a.transposeA) + std::to_string(a.transposeB) + "#" + std::to_string(a.checkId);
}

std::string_view predicateName(CmpPredicate pred) {
  switch (pred) {
    case CmpPredicate::EQ: return "eq";
    case CmpPredicate::NE: return "ne";
    case CmpPredicate::LT: return "lt";
    case CmpPredicate::LE: return "le";
    case CmpPredicate::GT: return "gt";
    case CmpPredicate::GE: return "ge";
  }
  return "?";
}

std::optional<CmpPredicate> parsePredicate(std::string_view name) {
  for (CmpPredicate p : {CmpPredicate::EQ, CmpPredicate::NE, CmpPredicate::LT, CmpPredicate::LE,
                         CmpPredicate::GT, CmpPredicate::GE})
    if (predicateName(p) == name) return p;
  return std::nullopt;
}

bool isUnaryElementwise(OpKind kind) {
  return kind >= OpKind::Neg && kind <= OpKind::Silu;
}

bool isBinaryElementwise(OpKind kind) {
  return kind >= OpKind::Add && kind <= OpKind::Minimum;
}

bool isElementwise(OpKind kind) {
  return kind >= OpKind::Neg && kind <= OpKind::Cast;
}

bool isIndexedRead(OpKind kind) {
  return kind == OpKind::Concat || isDeviceIndexed(kind);
}

bool isDeviceIndexed(OpKind kind) {
  return kind == OpKind::Gather || kind == OpKind::DynamicSlice || kind == OpKind::DynamicUpdateSlice;
}

bool isReduction(OpKind kind) {
  return kind >= OpKind::ReduceSum && kind <= OpKind::ArgMin;
}

bool isArgReduction(OpKind kind) { return kind == OpKind::ArgMax || kind == OpKind::ArgMin; }

}  // namespace tg::graph
