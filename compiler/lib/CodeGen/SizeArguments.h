//===- SizeArguments.h - Run-time extents a kernel takes (internal) --------===//
//
// Over dynamic dims (issue 18) a kernel's index arithmetic divides and multiplies by sizes
// that depend on the symbols. Each distinct size becomes a 64-bit member of the kernel's
// TgBody (z0_, z1_, ...), passed after the kernel's other arguments (rt::PlanLaunch::sizes,
// KernelEmission::sizes, in the order exprs() lists them).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "IndexExpr.h"
#include "KernelEmission.h"
#include "ScalarMath.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace tg::codegen {

/// Over dynamic dims, the run-time extents a kernel's index arithmetic divides and multiplies
/// by: each distinct size a size argument after the kernel's others (members z0_, z1_, ... of
/// TgBody), bounded by its largest value over the ranges.
class SizeArguments {
 public:
  explicit SizeArguments(const SymbolicSizes& symbolic) : symbolic_(symbolic) {}
  /// The dims of `v` as extents; nothing when a size overflows.
  std::optional<std::vector<Extent>> extentsOf(mlir::Value v) {
    std::vector<Extent> out;
    for (const SizeExpr& e : symbolic_.dims(v)) {
      if (std::optional<int64_t> c = e.constant()) {
        out.push_back({*c, {}});
        continue;
      }
      std::optional<int64_t> largest = symbolic_.largest(e);
      if (!largest) return std::nullopt;
      out.push_back({std::max<int64_t>(*largest, 1), member(e)});
    }
    return out;
  }
  const std::vector<SizeExpr>& exprs() const { return exprs_; }
  /// The most elements `v` has over the ranges (nothing when that overflows).
  std::optional<int64_t> largestCount(mlir::Value v) const { return symbolic_.largest(symbolic_.numel(v)); }
  /// The C text of `e` as a long long: its number, or the size argument that holds it
  /// (registered as extentsOf does); nothing when it overflows over the ranges.
  std::optional<std::string> text(const SizeExpr& e) {
    if (std::optional<int64_t> c = e.constant()) return std::to_string(*c) + "ll";
    if (!symbolic_.largest(e)) return std::nullopt;
    return member(e);
  }
  /// The start along `dim` of `slice` (a tg.slice whose starts depend on the symbols) as an
  /// extent: its number, or the size argument that holds it.
  std::optional<Extent> sliceStart(mlir::Operation* slice, size_t dim);
  /// `  long long z0_, z1_;` (empty when none).
  std::string members() const {
    std::string s;
    for (size_t k = 0; k < exprs_.size(); ++k) s += (k ? ", " : "  long long ") + numbered("z", static_cast<long long>(k)) + "_";
    return s.empty() ? s : s + ";  // run-time extents (size arguments)\n";
  }

 private:
  /// The member that holds `e` (added at the end when new).
  std::string member(const SizeExpr& e) {
    auto at = std::find(exprs_.begin(), exprs_.end(), e);
    if (at == exprs_.end()) at = exprs_.insert(exprs_.end(), e);
    return numbered("z", at - exprs_.begin()) + "_";
  }

  const SymbolicSizes& symbolic_;
  std::vector<SizeExpr> exprs_;
};

/// Over dynamic dims: the offset into its root at which element `i` of the kernel reads `v`
/// through any chain of broadcasts, transposes, reshapes and slices with static starts, its
/// index arithmetic dividing by run-time extents where the sizes are symbolic (`args`). Nothing
/// when the chain cannot be followed or the offset may not fit the index type.
std::optional<std::string> runtimeMappedOffset(mlir::Value v, SizeArguments& args, int64_t numelBound,
                                               const std::string& sfx, mlir::Value& root);

}  // namespace tg::codegen
