//===- SymbolicTypes.cpp - Tensor types with dynamic dims -----------------===//
#include "tg/Dialect/SymbolicTypes.h"

#include "tg/Dialect/OpDescription.h"
#include "tg/Dialect/TgOps.h"
#include "tg/Support/Error.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <tuple>

#include "mlir/IR/OpImplementation.h"

using namespace mlir;

namespace tg::ir {

LogicalResult refuseDynamicDims(Operation* func, llvm::StringRef pass) {
  if (!func->hasAttr(kSymbolsAttr)) return success();
  return func->emitError() << pass << ": the function has dynamic dims (" << kSymbolsAttr
                           << "), which tg does not compile yet";
}

std::optional<Symbols> symbolsOf(Operation* op, std::string& error) {
  auto func = isa<func::FuncOp>(op) ? cast<func::FuncOp>(op) : op->getParentOfType<func::FuncOp>();
  if (!func) return std::nullopt;
  Attribute attr = func->getAttr(kSymbolsAttr);
  if (!attr) return std::nullopt;
  auto list = dyn_cast<ArrayAttr>(attr);
  if (!list) {
    error = std::string(kSymbolsAttr) + " is not an array of #tg.symbol";
    return std::nullopt;
  }
  Symbols s;
  for (Attribute a : list) {
    auto sym = dyn_cast<SymbolAttr>(a);
    if (!sym) {
      error = std::string(kSymbolsAttr) + " is not an array of #tg.symbol";
      return std::nullopt;
    }
    const std::string name = sym.getName().str();
    if (std::find(s.names.begin(), s.names.end(), name) != s.names.end()) {
      error = "symbol '" + name + "' is listed twice in " + kSymbolsAttr;
      return std::nullopt;
    }
    s.names.push_back(name);
    s.min.push_back(sym.getMin());
    s.max.push_back(sym.getMax());
  }
  return s;
}

bool isSymbolic(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  return t && isa_and_present<SizesAttr>(t.getEncoding());
}

std::string whyNotSymbolicTgTensor(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || !isSymbolic(type)) return text + " has no #tg.sizes encoding";
  if (!dtypeOf(t.getElementType())) return text + " does not have a tg element type (f32, f16, bf16, i32 or i1)";
  std::vector<std::string> names;
  const std::vector<SizeExpr> sizes = cast<SizesAttr>(t.getEncoding()).getSizes(names);
  if (sizes.size() != static_cast<size_t>(t.getRank()))
    return text + ": #tg.sizes gives " + std::to_string(sizes.size()) + " sizes for " + std::to_string(t.getRank()) +
           " dims";
  bool anySymbolic = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const std::optional<int64_t> c = sizes[i].constant();
    const int64_t dim = t.getDimSize(static_cast<unsigned>(i));
    anySymbolic = anySymbolic || !c;
    if (c && (ShapedType::isDynamic(dim) || dim != *c))
      return text + ": dim " + std::to_string(i) + " has the constant size " + std::to_string(*c) +
             ", so its extent is " + std::to_string(*c);
    if (!c && !ShapedType::isDynamic(dim))
      return text + ": dim " + std::to_string(i) + " has the size " + sizes[i].str(names) + ", so its extent is ?";
  }
  if (!anySymbolic) return text + ": no size depends on a symbol (a static type has no encoding)";
  return {};
}

bool integersOf(std::span<const SizeExpr> sizes, SmallVectorImpl<int64_t>& integers) {
  bool symbolic = false;
  for (const SizeExpr& e : sizes) {
    const std::optional<int64_t> c = e.constant();
    integers.push_back(c ? *c : ShapedType::kDynamic);
    symbolic = symbolic || !c;
  }
  return symbolic;
}

std::pair<DenseI64ArrayAttr, SizesAttr> symbolicListAttrs(MLIRContext* context, std::span<const SizeExpr> sizes,
                                                          std::span<const std::string> names) {
  SmallVector<int64_t> ints;
  const bool symbolic = integersOf(sizes, ints);
  std::vector<std::string> nameList(names.begin(), names.end());
  return {DenseI64ArrayAttr::get(context, ints),
          symbolic ? SizesAttr::get(context, ArrayRef<SizeExpr>(sizes.data(), sizes.size()), nameList) : SizesAttr()};
}

RankedTensorType symbolicTensorType(MLIRContext* context, DType dtype, std::span<const SizeExpr> sizes,
                                    std::span<const std::string> names) {
  SmallVector<int64_t> shape;
  const bool symbolic = integersOf(sizes, shape);
  Type element = elementTypeOf(context, dtype);
  if (!symbolic) return RankedTensorType::get(shape, element);
  std::vector<std::string> nameList(names.begin(), names.end());
  return RankedTensorType::get(shape, element,
                               SizesAttr::get(context, ArrayRef<SizeExpr>(sizes.data(), sizes.size()), nameList));
}

std::vector<SizeExpr> sizesOf(Type type, std::vector<std::string>& names) {
  auto t = cast<RankedTensorType>(type);
  if (auto sizes = dyn_cast_if_present<SizesAttr>(t.getEncoding())) return sizes.getSizes(names);
  return std::vector<SizeExpr>(t.getShape().begin(), t.getShape().end());
}

std::optional<std::vector<SizeExpr>> sizesIn(SizesAttr sizes, const Symbols& symbols, const std::string& what,
                                             std::string& error) {
  std::vector<std::string> names = symbols.names;
  std::vector<SizeExpr> list = sizes.getSizes(names);
  if (names.size() != symbols.names.size()) {
    error = what + " names '" + names[symbols.names.size()] + "', which is not one of the function's " + kSymbolsAttr;
    return std::nullopt;
  }
  return list;
}

std::optional<graph::TensorType> instantiate(Type type, const Symbols& symbols, std::span<const int64_t> values,
                                             std::string& error) {
  if (!isSymbolic(type)) {
    std::optional<graph::TensorType> t = typeOf(type);
    if (!t) error = whyNotTgTensor(type);
    return t;
  }
  if (std::string why = whyNotSymbolicTgTensor(type); !why.empty()) {
    error = why;
    return std::nullopt;
  }
  const std::optional<std::vector<SizeExpr>> sizes =
      sizesIn(cast<SizesAttr>(cast<RankedTensorType>(type).getEncoding()), symbols, "its size", error);
  if (!sizes) return std::nullopt;
  const std::vector<std::string>& names = symbols.names;
  graph::TensorType out{*dtypeOf(cast<RankedTensorType>(type).getElementType()), {}};
  for (const SizeExpr& e : *sizes) {
    std::optional<int64_t> v = e.evaluate(values);
    if (!v || *v < 0) {
      error = "its size " + e.str(names) + (v ? " is negative" : " overflows");
      return std::nullopt;
    }
    out.shape.push_back(*v);
  }
  if (std::string why = tensor_size_error(out.dtype, out.shape); !why.empty()) {
    error = why;
    return std::nullopt;
  }
  return out;
}

std::optional<int64_t> largestValue(const SizeExpr& size, const Symbols& symbols) {
  const size_t n = symbols.names.size();
  if (n > 16) return std::nullopt;
  std::optional<int64_t> best;
  std::vector<int64_t> at(n);
  for (uint64_t corner = 0; corner < (uint64_t(1) << n); ++corner) {
    for (size_t i = 0; i < n; ++i) at[i] = (corner >> i) & 1 ? symbols.max[i] : symbols.min[i];
    std::optional<int64_t> v = size.evaluate(at);
    if (!v) return std::nullopt;
    best = best ? std::max(*best, *v) : *v;
  }
  return best;
}

std::vector<std::vector<int64_t>> verificationSizes(const Symbols& symbols, std::span<const int> used) {
  const size_t n = symbols.names.size();
  std::vector<int64_t> lo(n), hi(n), mid(n);
  for (size_t s = 0; s < n; ++s) {
    lo[s] = symbols.max[s] >= 2 ? std::max<int64_t>(symbols.min[s], 2) : symbols.min[s];
    hi[s] = symbols.max[s];
    mid[s] = std::min(hi[s], (lo[s] + (hi[s] - lo[s]) / 2) | 1);
  }
  std::vector<std::vector<int64_t>> out;
  const size_t k = std::min<size_t>(used.size(), 8);  // 256 combinations at the most
  for (unsigned mask = 0; mask < (1u << k); ++mask) {
    std::vector<int64_t> v = lo;
    for (size_t b = 0; b < k; ++b)
      if (mask & (1u << b)) v[used[b]] = hi[used[b]];
    out.push_back(std::move(v));
  }
  std::vector<int64_t> m = lo;
  for (int s : used) m[s] = mid[s];
  out.push_back(std::move(m));
  return out;
}

OwningOpRef<ModuleOp> instantiateModule(ModuleOp symbolic, std::span<const int64_t> values, std::string& error) {
  OwningOpRef<ModuleOp> module = symbolic.clone();
  auto func = dyn_cast_or_null<func::FuncOp>(module->getBody()->empty() ? nullptr : &module->getBody()->front());
  std::optional<Symbols> symbols = func ? symbolsOf(func, error) : std::nullopt;
  if (!symbols) {
    if (error.empty()) error = "the module's function has no tg.symbols";
    return nullptr;
  }
  if (values.size() != symbols->names.size()) {
    error = "sizes for " + std::to_string(values.size()) + " symbols, the function has " +
            std::to_string(symbols->names.size());
    return nullptr;
  }
  for (size_t s = 0; s < values.size(); ++s)
    if (values[s] < symbols->min[s] || values[s] > symbols->max[s]) {
      error = symbols->names[s] + " = " + std::to_string(values[s]) + " is outside [" + std::to_string(symbols->min[s]) +
              ", " + std::to_string(symbols->max[s]) + "]";
      return nullptr;
    }
  MLIRContext* ctx = module->getContext();
  auto staticType = [&](Type t) -> FailureOr<Type> {
    if (!isSymbolic(t)) return t;
    std::optional<graph::TensorType> g = instantiate(t, *symbols, values, error);
    if (!g) return failure();
    return Type(tensorTypeOf(ctx, *g));
  };
  // Argument and result types, then every value.
  SmallVector<Type> inputs, results;
  for (Type t : func.getFunctionType().getInputs()) {
    FailureOr<Type> s = staticType(t);
    if (failed(s)) return nullptr;
    inputs.push_back(*s);
  }
  for (Type t : func.getFunctionType().getResults()) {
    FailureOr<Type> s = staticType(t);
    if (failed(s)) return nullptr;
    results.push_back(*s);
  }
  func.setFunctionType(FunctionType::get(ctx, inputs, results));
  for (BlockArgument a : func.getArguments()) a.setType(inputs[a.getArgNumber()]);
  bool failedAny = false;
  SmallVector<SizeOp> sizeOps;
  func.walk([&](Operation* op) {
    if (failedAny) return;
    for (Value r : op->getResults()) {
      FailureOr<Type> s = staticType(r.getType());
      if (failed(s)) {
        failedAny = true;
        return;
      }
      r.setType(*s);
    }
    auto list = [&](DenseI64ArrayAttr ints, SizesAttr sizes) -> DenseI64ArrayAttr {
      std::optional<std::vector<int64_t>> v = instantiateList(ints, sizes, *symbols, values, error);
      if (!v) failedAny = true;
      return v ? DenseI64ArrayAttr::get(ctx, *v) : ints;
    };
    if (auto slice = dyn_cast<SliceOp>(op)) {
      slice.setStartsAttr(list(slice.getStartsAttr(), slice.getSymStartsAttr()));
      slice.setLimitsAttr(list(slice.getLimitsAttr(), slice.getSymLimitsAttr()));
      slice.setStepsAttr(list(slice.getStepsAttr(), slice.getSymStepsAttr()));
      slice.removeSymStartsAttr();
      slice.removeSymLimitsAttr();
      slice.removeSymStepsAttr();
    } else if (auto update = dyn_cast<DynamicUpdateSliceOp>(op)) {
      update.setOffsetsAttr(list(update.getOffsetsAttr(), update.getSymOffsetsAttr()));
      update.removeSymOffsetsAttr();
    } else if (auto size = dyn_cast<SizeOp>(op)) {
      sizeOps.push_back(size);
    }
  });
  if (failedAny) return nullptr;
  for (SizeOp size : sizeOps) {  // the value at these sizes, as a constant
    std::vector<std::string> names = symbols->names;
    const std::optional<int64_t> v = size.getValue().getSizes(names)[0].evaluate(values);
    if (!v) {
      error = "the size of a tg.size overflows";
      return nullptr;
    }
    OpBuilder b(size);
    auto type = cast<RankedTensorType>(size.getType());
    Attribute element = isa<FloatType>(type.getElementType())
                            ? Attribute(b.getFloatAttr(type.getElementType(), static_cast<double>(*v)))
                            : Attribute(b.getIntegerAttr(type.getElementType(), *v));
    Value c = ConstantOp::create(b, size.getLoc(), DenseElementsAttr::get(type, element));
    size.replaceAllUsesWith(c);
    size.erase();
  }
  func->removeAttr(kSymbolsAttr);
  if (failed(verify(*module))) {
    error = "at these sizes the module does not verify";
    return nullptr;
  }
  return module;
}

/// One size: sums and differences of products of integers and names (SizeExpr's grammar, read
/// with MLIR's tokens).
FailureOr<SizeExpr> parseSize(AsmParser& parser, std::vector<std::string>& names) {
  auto factor = [&]() -> FailureOr<SizeExpr> {
    int64_t value = 0;
    OptionalParseResult integer = parser.parseOptionalInteger(value);
    if (integer.has_value()) {
      if (failed(*integer)) return failure();
      return SizeExpr(value);
    }
    StringRef name;
    const llvm::SMLoc at = parser.getCurrentLocation();
    if (failed(parser.parseOptionalKeyword(&name)))
      return parser.emitError(at, "expected an integer or a symbol name in a size");
    // MLIR's bare identifiers also hold '.' and '$'; a symbol's name is what SizeExpr reads.
    if (!llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; }))
      return parser.emitError(at, "a symbol's name is letters, digits and '_', not '") << name << "'";
    auto it = std::find(names.begin(), names.end(), name.str());
    if (it == names.end()) it = names.insert(names.end(), name.str());
    return SizeExpr::symbol(static_cast<int>(it - names.begin()));
  };
  auto product = [&]() -> FailureOr<SizeExpr> {
    const bool negative = succeeded(parser.parseOptionalMinus());
    FailureOr<SizeExpr> e = factor();
    while (succeeded(e) && succeeded(parser.parseOptionalStar())) {
      FailureOr<SizeExpr> rhs = factor();
      if (failed(rhs)) return failure();
      e = *e * *rhs;
    }
    if (succeeded(e) && negative) e = SizeExpr(0) - *e;
    return e;
  };
  try {
    FailureOr<SizeExpr> e = product();
    while (succeeded(e)) {
      if (succeeded(parser.parseOptionalPlus())) {
        FailureOr<SizeExpr> rhs = product();
        if (failed(rhs)) return failure();
        e = *e + *rhs;
      } else if (succeeded(parser.parseOptionalMinus())) {
        FailureOr<SizeExpr> rhs = product();
        if (failed(rhs)) return failure();
        e = *e - *rhs;
      } else {
        break;
      }
    }
    return e;
  } catch (const tg::Error& overflow) {
    return parser.emitError(parser.getCurrentLocation(), overflow.message());
  }
}


ParseResult parseSymbolicList(OpAsmParser& parser, DenseI64ArrayAttr& values, SizesAttr& sizes) {
  std::vector<std::string> names;
  std::vector<SizeExpr> list;
  if (failed(parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() -> ParseResult {
        FailureOr<SizeExpr> e = parseSize(parser, names);
        if (failed(e)) return failure();
        list.push_back(*e);
        return success();
      })))
    return failure();
  std::tie(values, sizes) = symbolicListAttrs(parser.getContext(), list, names);
  return success();
}

void printSymbolicList(OpAsmPrinter& printer, Operation*, DenseI64ArrayAttr values, SizesAttr sizes) {
  if (sizes) {
    printer << "[" << sizes.getText() << "]";
    return;
  }
  printer << "[";
  llvm::interleaveComma(values.asArrayRef(), printer);
  printer << "]";
}

std::optional<std::vector<int64_t>> instantiateList(DenseI64ArrayAttr values, SizesAttr sizes, const Symbols& symbols,
                                                    std::span<const int64_t> at, std::string& error) {
  if (!sizes) return std::vector<int64_t>(values.asArrayRef().begin(), values.asArrayRef().end());
  const std::optional<std::vector<SizeExpr>> sizesList = sizesIn(sizes, symbols, "a bound", error);
  if (!sizesList) return std::nullopt;
  const std::vector<SizeExpr>& list = *sizesList;
  const std::vector<std::string>& names = symbols.names;
  if (list.size() != static_cast<size_t>(values.size())) {
    error = "its sizes list " + std::to_string(list.size()) + " entries for " + std::to_string(values.size());
    return std::nullopt;
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < list.size(); ++i) {
    std::optional<int64_t> v = list[i].evaluate(at);
    if (!v) {
      error = "its bound " + list[i].str(names) + " overflows";
      return std::nullopt;
    }
    const std::optional<int64_t> c = list[i].constant();
    if ((c && values[i] != *c) || (!c && values[i] != ShapedType::kDynamic)) {
      error = "entry " + std::to_string(i) + " is " + std::to_string(values[i]) + " but its size is " + list[i].str(names);
      return std::nullopt;
    }
    out.push_back(*v);
  }
  return out;
}

}  // namespace tg::ir
