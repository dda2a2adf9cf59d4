//===- TgDialect.cpp - Registration of the tg dialect ---------------------===//
#include "tg/Dialect/TgDialect.h"
#include "tg/Dialect/TgOps.h"
#include "tg/Dialect/SymbolicTypes.h"
#include "tg/Support/Error.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;

#include "tg/Dialect/TgOpsDialect.cpp.inc"
#include "tg/Dialect/TgOpsEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "tg/Dialect/TgOpsAttrs.cpp.inc"

namespace tg::ir {

void TgDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tg/Dialect/TgOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tg/Dialect/TgOpsAttrs.cpp.inc"
      >();
}

LogicalResult MatmulConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                       MatmulPath path, StringRef arch, DenseI64ArrayAttr tile,
                                       int64_t stages, GemmSchedule schedule,
                                       StringRef kmajorCopy, StringRef reason) {
  (void)arch;
  (void)reason;
  if (!tile || tile.size() != 3 || tile[0] <= 0 || tile[1] <= 0 || tile[2] <= 0)
    return emitError() << "a matmul tile is three positive extents (rows, columns, K-block)";
  const bool pipelined = path == MatmulPath::wgmma || path == MatmulPath::mma_sync;
  if (stages < 0 || (pipelined && stages < 2))
    return emitError() << "the " << stringifyMatmulPath(path)
                       << " path needs at least 2 pipeline stages, got " << stages;
  if ((path == MatmulPath::wgmma) != (schedule != GemmSchedule::none))
    return emitError() << "a schedule (cooperative or pingpong) is given exactly for wgmma";
  if (kmajorCopy != "" && kmajorCopy != "A" && kmajorCopy != "B" && kmajorCopy != "A, B")
    return emitError() << "kmajor_copy is \"\", \"A\", \"B\" or \"A, B\", not \"" << kmajorCopy
                       << "\"";
  return success();
}

Operation* TgDialect::materializeConstant(OpBuilder& builder, Attribute value, Type type,
                                          Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type) return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

LogicalResult BufferAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 rt::PlanBuffer::Kind kind, int64_t index, int64_t offset,
                                 int64_t bytes) {
  using Kind = rt::PlanBuffer::Kind;
  if (bytes < 0 || offset < 0) return emitError() << "a buffer's bytes and offset are not negative";
  const bool indexed = kind == Kind::Input || kind == Kind::Output;
  if (indexed != (index >= 0))
    return emitError() << "a buffer has an index (>= 0) exactly when it is an input or output, "
                       << "not for '" << rt::bufferKindName(kind) << "' with index " << index;
  if (index < -1) return emitError() << "index " << index << " is neither a position nor -1";
  if (kind != Kind::Arena && offset != 0)
    return emitError() << "only arena buffers have an offset";
  return success();
}

LogicalResult TgDialect::verifyOperationAttribute(Operation* op, NamedAttribute attribute) {
  if (attribute.getName() != kSymbolsAttr) return success();
  std::string error;
  if (!symbolsOf(op, error) && !error.empty()) return op->emitError(error);
  return success();
}

LogicalResult SymbolAttr::verify(function_ref<InFlightDiagnostic()> emitError, StringRef name, int64_t min,
                                 int64_t max) {
  const bool identifier = !name.empty() && !llvm::isDigit(name.front()) &&
                          llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; });
  if (!identifier)
    return emitError() << "a symbol's name is letters, digits and '_', not starting with a digit: '" << name << "'";
  if (min < 1 || max < min || max > kMaxTensorBytes)
    return emitError() << "symbol '" << name << "' has the range [" << min << ", " << max
                       << "]; it needs 1 <= min <= max <= 2^48";
  return success();
}

namespace {

/// The canonical text of `sizes` (symbol i named names[i]): the symbols that occur renumbered
/// in the order of their names, so that the text does not depend on the numbering.
std::string canonicalSizesText(ArrayRef<SizeExpr> sizes, ArrayRef<std::string> names) {
  std::vector<int> used;
  for (const SizeExpr& e : sizes)
    for (const SizeExpr::Term& t : e.terms())
      for (int s : t.symbols)
        if (std::find(used.begin(), used.end(), s) == used.end()) used.push_back(s);
  auto nameOf = [&](int s) { return static_cast<size_t>(s) < names.size() ? names[s] : "s" + std::to_string(s); };
  std::sort(used.begin(), used.end(), [&](int a, int b) { return nameOf(a) < nameOf(b); });
  std::vector<int> renumber(static_cast<size_t>(used.empty() ? 0 : *std::max_element(used.begin(), used.end()) + 1), -1);
  std::vector<std::string> sortedNames;
  for (size_t i = 0; i < used.size(); ++i) {
    renumber[used[i]] = static_cast<int>(i);
    sortedNames.push_back(nameOf(used[i]));
  }
  std::string text;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i) text += ", ";
    text += sizes[i].renamed(renumber).str(sortedNames);
  }
  return text;
}

}  // namespace

SizesAttr SizesAttr::get(MLIRContext* context, ArrayRef<SizeExpr> sizes, ArrayRef<std::string> names) {
  return Base::get(context, canonicalSizesText(sizes, names));
}

std::vector<SizeExpr> SizesAttr::getSizes(std::vector<std::string>& names) const {
  std::vector<SizeExpr> out;
  const std::string text = getText().str();
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    size_t end = text.find(", ", start);
    if (end == std::string::npos) end = text.size();
    std::string error;
    std::optional<SizeExpr> e = SizeExpr::parse(std::string_view(text).substr(start, end - start), names, error);
    if (!e) throw tg::Error("internal error: #tg.sizes holds '" + text + "': " + error);
    out.push_back(*e);
    start = end + 2;
  }
  return out;
}

Attribute SizesAttr::parse(AsmParser& parser, Type) {
  std::vector<std::string> names;
  std::vector<SizeExpr> sizes;
  if (failed(parser.parseLess()) ||
      failed(parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() -> ParseResult {
        FailureOr<SizeExpr> e = parseSize(parser, names);
        if (failed(e)) return failure();
        sizes.push_back(*e);
        return success();
      })) ||
      failed(parser.parseGreater()))
    return {};
  return SizesAttr::get(parser.getContext(), sizes, names);
}

void SizesAttr::print(AsmPrinter& printer) const { printer << "<[" << getText() << "]>"; }

}  // namespace tg::ir
