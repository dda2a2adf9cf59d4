//===- SymbolicTypes.h - Tensor types with dynamic dims (issue 18) --------===//
//
// A function compiled for a range of sizes names its symbols in `tg.symbols` (#tg.symbol: a
// name and a range; a symbol's number is its position), and a tensor whose extents depend on
// them has `?` for each such dim and every dim's polynomial in its encoding:
// `tensor<?x64xf32, #tg.sizes<[batch*seq, 64]>>`. Verifiers check ops on such types by
// instantiating them at sample sizes and running the concrete shape rules (TgOps.cpp).
//
// Not compiled yet: the front door (EntryFunction.h) still takes static types only.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Graph/ShapeRules.h"
#include "tg/Support/SizeExpr.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/ADT/SmallVector.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
class AsmParser;
class OpAsmParser;
class OpAsmPrinter;
}  // namespace mlir

namespace tg::ir {

class SizesAttr;

/// The function attribute listing its symbols: an array of #tg.symbol.
inline constexpr const char* kSymbolsAttr = "tg.symbols";

/// tg-select-matmul's guarded variant of a matmul over dynamic dims: the #tg.matmul
/// configuration its kernel has where the result's rows (its batch x M) are at most
/// `tg.matmul_small_rows` (an i64); codegen makes both kernels and the runtime picks one at
/// each size (rt::PlanLaunch::variants).
inline constexpr const char* kMatmulSmallAttr = "tg.matmul_small";
inline constexpr const char* kMatmulSmallRowsAttr = "tg.matmul_small_rows";

/// A function's symbols, in order.
struct Symbols {
  std::vector<std::string> names;
  std::vector<int64_t> min, max;
};

/// The largest value `size` takes over the symbols' ranges (symbol i is symbols' i-th), found
/// at the corners of their box (exact for sizes of degree at most one in each symbol, which is
/// what tg infers); nothing when it overflows or there are more than 16 symbols.
std::optional<int64_t> largestValue(const SizeExpr& size, const Symbols& symbols);

/// Failure, with an error on `func`, when it has dynamic dims (tg.symbols): what every pass
/// that does not take them yet says first (tg-opt runs passes on any verified IR).
mlir::LogicalResult refuseDynamicDims(mlir::Operation* func, llvm::StringRef pass);

/// The symbols of the function that holds `op` (or is `op`): empty when it has none; an error
/// (in `error`) when `tg.symbols` is not an array of #tg.symbol of distinct names.
std::optional<Symbols> symbolsOf(mlir::Operation* op, std::string& error);

/// Whether `type` is a ranked tensor with a #tg.sizes encoding.
bool isSymbolic(mlir::Type type);
/// Why `type` is not a well-formed symbolic tg tensor (empty if it is): a ranked tensor of a
/// tg element type whose #tg.sizes encoding has one size per dim, with `?` exactly where the
/// size depends on a symbol and the static extent where it is a constant.
std::string whyNotSymbolicTgTensor(mlir::Type type);
/// The type of `dtype` with `sizes` (symbol i named names[i]): static when every size is a
/// constant.
mlir::RankedTensorType symbolicTensorType(mlir::MLIRContext* context, DType dtype, std::span<const SizeExpr> sizes,
                                          std::span<const std::string> names);
/// The entries of `sizes` with the symbols numbered as `symbols` lists them; empty, with "<what>
/// names 'x', which is not one of the function's tg.symbols" in `error`, when one names
/// another symbol.
std::optional<std::vector<SizeExpr>> sizesIn(SizesAttr sizes, const Symbols& symbols, const std::string& what,
                                             std::string& error);
/// Each dim of a tg tensor type as a size (constants for static types), with the symbols
/// numbered by `names` (names not in it are appended).
std::vector<SizeExpr> sizesOf(mlir::Type type, std::vector<std::string>& names);
/// The static type `type` takes when symbol i has `values[i]` (names[i] its name): empty, with
/// the reason in `error`, when a size is negative or overflows, or the type breaks tg's size
/// limit.
std::optional<graph::TensorType> instantiate(mlir::Type type, const Symbols& symbols,
                                             std::span<const int64_t> values, std::string& error);

/// Sizes of the symbols that verification tries: every combination of each used symbol's
/// lowest (from 2) and highest size, and one with each at an odd size near the middle of its
/// range (unused symbols at their lowest). Polynomials of degree at most one in each symbol
/// that agree on the combinations are equal.
std::vector<std::vector<int64_t>> verificationSizes(const Symbols& symbols, std::span<const int> used);

/// The static module a module with dynamic dims is at the sizes `values` (values[i] for symbol
/// i of its function's tg.symbols): every #tg.sizes type, slice bound and update offset
/// evaluated, every tg.size a splat constant, tg.symbols dropped. Null, with the reason in
/// `error`, when a size is out of its range or the result does not verify (at these sizes a
/// shape rule fails). The module the trace at those sizes imports to, up to folds; and a way
/// to run a symbolic module where no pass takes it yet.
mlir::OwningOpRef<mlir::ModuleOp> instantiateModule(mlir::ModuleOp symbolic, std::span<const int64_t> values,
                                                    std::string& error);

/// One size in MLIR's tokens: sums and differences of products of integers and names (names
/// not in `names` are appended; a symbol's number is its position there).
mlir::FailureOr<SizeExpr> parseSize(mlir::AsmParser& parser, std::vector<std::string>& names);

/// `sizes` as integers, ShapedType::kDynamic where a size depends on a symbol; whether any does.
bool integersOf(std::span<const SizeExpr> sizes, llvm::SmallVectorImpl<int64_t>& integers);
/// The attributes of such a list (see below): the integers, and the sizes when any is symbolic
/// (else null). Symbol i is named names[i].
std::pair<mlir::DenseI64ArrayAttr, SizesAttr> symbolicListAttrs(mlir::MLIRContext* context,
                                                                std::span<const SizeExpr> sizes,
                                                                std::span<const std::string> names);

/// An op's list of integers that may depend on symbols (slice bounds, update offsets): printed
/// `[0, T - 1]`; the integer array holds ShapedType::kDynamic where a size is not a constant
/// and `sizes` (null when none is) holds every entry's size. The `custom<SymbolicList>`
/// directive of TgOps.td.
mlir::ParseResult parseSymbolicList(mlir::OpAsmParser& parser, mlir::DenseI64ArrayAttr& values, SizesAttr& sizes);
void printSymbolicList(mlir::OpAsmPrinter& printer, mlir::Operation* op, mlir::DenseI64ArrayAttr values,
                       SizesAttr sizes);
/// Such a list when symbol i has `at[i]` (names from `symbols`); empty, with the reason in
/// `error`, when a size overflows, names an unknown symbol or disagrees with its integer.
std::optional<std::vector<int64_t>> instantiateList(mlir::DenseI64ArrayAttr values, SizesAttr sizes,
                                                    const Symbols& symbols, std::span<const int64_t> at,
                                                    std::string& error);

}  // namespace tg::ir
