//===- SizeArguments.cpp - Reads through layouts with run-time extents ----===//
#include "SizeArguments.h"

#include "tg/Dialect/LayoutChain.h"
#include "tg/Dialect/SymbolicTypes.h"
#include "tg/Dialect/TgOps.h"

using namespace mlir;

namespace tg::codegen {

std::optional<Extent> SizeArguments::sliceStart(Operation* op, size_t dim) {
  auto slice = dyn_cast<ir::SliceOp>(op);
  if (!slice || !slice.getSymStarts()) return std::nullopt;
  std::string error;
  std::optional<std::vector<SizeExpr>> starts = ir::sizesIn(*slice.getSymStarts(), symbolic_, "a slice's starts", error);
  if (!starts || dim >= starts->size()) return std::nullopt;
  const SizeExpr& e = (*starts)[dim];
  if (std::optional<int64_t> c = e.constant()) return Extent{*c, {}};
  std::optional<int64_t> largest = symbolic_.largest(e);
  if (!largest) return std::nullopt;
  return Extent{std::max<int64_t>(*largest, 1), member(e)};
}

std::optional<std::string> runtimeMappedOffset(Value v, SizeArguments& args, int64_t numelBound, const std::string& sfx,
                                               Value& root) {
  std::optional<std::vector<Extent>> shape = args.extentsOf(v);
  if (!shape) return std::nullopt;
  const DimIndices at = delinearizeExtents(IndexExpr::var("i", numelBound), *shape);
  std::optional<std::vector<IndexExpr>> dims =
      mapToRootExtents(v, at.dims, [&](Value x) { return args.extentsOf(x); }, root,
                       [&](Operation* slice, size_t d) { return args.sliceStart(slice, d); });
  if (!dims) return std::nullopt;
  std::optional<std::vector<Extent>> rootShape = args.extentsOf(root);
  if (!rootShape) return std::nullopt;
  // Every partial sum, quotient and product on the way to the root's offset is at most an
  // element index of a value of the chain or the kernel's (IndexExpr::bound() multiplies the
  // run-time extents' largest values as if all could be largest at once): the index type must
  // hold the counts of the chain's values.
  int64_t most = numelBound;
  for (Operation* op : traceLayout(v).ops)
    for (Value x : std::initializer_list<Value>{op->getOperand(0), op->getResult(0)}) {
      const std::optional<int64_t> count = args.largestCount(x);
      if (!count) return std::nullopt;
      most = std::max(most, *count);
    }
  if (sfx == "u" && most + 64 > (int64_t(1) << 32)) return std::nullopt;
  return linearizeExtents(*dims, *rootShape).str(sfx);
}

}  // namespace tg::codegen
