//===- SymbolicInference.cpp - The shape rules at sample sizes, fitted -----===//
#include "tg/Dialect/SymbolicInference.h"

#include "tg/Dialect/OpDescription.h"
#include "tg/Support/SizeFit.h"

#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>

using namespace mlir;

namespace tg::ir {

namespace {

std::string sizesText(const Symbols& symbols, std::span<const int64_t> values) {
  std::string s;
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + symbols.names[i] + " = " + std::to_string(values[i]);
  return s;
}

}  // namespace

std::optional<RankedTensorType> inferSymbolicResultType(MLIRContext* context, graph::OpKind kind,
                                                        const AttrsAtSizes& attrs, TypeRange operands,
                                                        const Symbols& symbols, std::string& error) {
  const size_t n = symbols.names.size();
  std::vector<std::string> names = symbols.names;
  for (Type t : operands) {
    if (!isa<RankedTensorType>(t) || !typeOf(t)) {
      if (!isSymbolic(t)) {
        error = "an operand is not a tg tensor";
        return std::nullopt;
      }
    }
    (void)sizesOf(t, names);  // appends the names `symbols` lacks
  }
  if (names.size() != n) {
    error = "an operand names '" + names[n] + "', which is not one of the function's tg.symbols";
    return std::nullopt;
  }
  // The attributes may depend on any symbol (a broadcast's target), so every symbol of the
  // function varies, not only the operands' (a check of 2^n cheap rule calls, n <= 8).
  if (n > 8) {
    error = "more than 8 symbols in one function";
    return std::nullopt;
  }
  std::vector<int> used;
  for (size_t s = 0; s < n; ++s) used.push_back(static_cast<int>(s));

  // The static result at `values`, or empty with the error.
  auto resultAt = [&](std::span<const int64_t> values) -> std::optional<graph::TensorType> {
    std::vector<graph::TensorType> types;
    for (Type t : operands) {
      std::optional<graph::TensorType> st = instantiate(t, symbols, values, error);
      if (!st) {
        if (n > 0) error = "at " + sizesText(symbols, values) + ": " + error;
        return std::nullopt;
      }
      types.push_back(*st);
    }
    graph::TensorType result;
    std::string why = graph::inferResultType(kind, attrs(values), types, result);
    if (!why.empty()) {
      error = n == 0 ? why : "at " + sizesText(symbols, values) + ": " + why;
      return std::nullopt;
    }
    return result;
  };

  // The grid: each varied symbol at its lowest size (from 2) or one more (one less at the top).
  std::vector<int64_t> base(n), probe(n);
  std::vector<int> varied;
  for (size_t s = 0; s < n; ++s) {
    base[s] = symbols.max[s] >= 2 ? std::max<int64_t>(symbols.min[s], 2) : symbols.min[s];
    probe[s] = base[s] + 1 <= symbols.max[s] ? base[s] + 1 : base[s] - 1;
  }
  for (int s : used)
    if (symbols.min[s] < symbols.max[s]) varied.push_back(s);  // a symbol of one size is a constant
  std::vector<unsigned> subsets;
  std::vector<std::vector<int64_t>> samples;
  std::optional<graph::TensorType> first;
  for (unsigned mask = 0; mask < (1u << varied.size()); ++mask) {
    std::vector<int64_t> values = base;
    for (size_t b = 0; b < varied.size(); ++b)
      if (mask & (1u << b)) values[varied[b]] = probe[varied[b]];
    std::optional<graph::TensorType> r = resultAt(values);
    if (!r) return std::nullopt;
    if (!first) first = r;
    if (r->dtype != first->dtype || r->shape.size() != first->shape.size()) {
      error = "the result's rank or dtype changes with the sizes (at " + sizesText(symbols, values) + ")";
      return std::nullopt;
    }
    subsets.push_back(mask);
    samples.push_back(r->shape);
  }
  const size_t rank = first->shape.size();
  std::vector<SizeExpr> dims = fitMultilinear(
      varied, base, probe, subsets, [&](unsigned mask) -> const std::vector<int64_t>& { return samples[mask]; }, rank);

  for (const std::vector<int64_t>& values : verificationSizes(symbols, used)) {
    std::optional<graph::TensorType> r = resultAt(values);
    if (!r) return std::nullopt;
    for (size_t d = 0; d < rank; ++d) {
      std::optional<int64_t> fitted = dims[d].evaluate(values);
      if (r->shape.size() != rank || !fitted || *fitted != r->shape[d]) {
        error = "dim " + std::to_string(d) + " of the result is " +
                (r->shape.size() == rank ? std::to_string(r->shape[d]) : std::string("gone")) + " at " +
                sizesText(symbols, values) + ", which no polynomial of degree one in each symbol gives (" +
                dims[d].str(symbols.names) + " fits the sizes near the lowest)";
        return std::nullopt;
      }
    }
  }
  return symbolicTensorType(context, first->dtype, dims, symbols.names);
}

}  // namespace tg::ir
