//===- DynamicDims.h - A jit function's symbolic dimensions (internal) ----===//
//
// JitOptions::dynamic, checked once when the function is made and against each call: which
// argument dims are symbols, each symbol's range, and the symbols' sizes in a call. Dims named
// by one tg::Dim (by name) are one symbol. MLIR-free.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Graph/ShapeRules.h"
#include "tg/tg.h"

#include <span>
#include <string>
#include <vector>

namespace tg::detail {

class DynamicDims {
 public:
  struct Symbol {
    std::string name;
    int64_t min = 1, max = 1;
  };
  /// Dim `dim` of argument `arg` (as the user wrote it: negative from the end) is `symbol`.
  struct Site {
    int arg = 0;
    int dim = 0;
    int symbol = 0;
  };

  DynamicDims() = default;
  /// Checks `dynamic` (names, ranges, one entry per argument dim, one range per name) and
  /// numbers its symbols in order of first appearance. Throws tg::Error at `definedAt`.
  DynamicDims(const std::vector<DynamicDim>& dynamic, const SourceLoc& definedAt);

  bool empty() const { return symbols_.empty(); }
  const std::vector<Symbol>& symbols() const { return symbols_; }
  const std::vector<Site>& sites() const { return sites_; }
  /// The symbols' names, in order (SizeExpr::str's argument).
  std::vector<std::string> names() const;

  /// The dim of `rank` a site names (its negative dim counted from the end), or -1 when the
  /// argument has no such dim.
  static int normalizedDim(const Site& site, size_t rank);
  /// Each symbol's size in a call with argument types `types`. Throws tg::Error at `site` when
  /// a site names an argument or a dim the call does not have, a size is outside its symbol's
  /// range, or two dims of one symbol differ.
  std::vector<int64_t> valuesOf(std::span<const graph::TensorType> types, const SourceLoc& where) const;
  /// `types` with each site's dim set to its symbol's size in `values` (the argument types of
  /// a trace at other sizes).
  std::vector<graph::TensorType> withSizes(std::vector<graph::TensorType> types, std::span<const int64_t> values) const;
  /// "batch in [1, 256] (argument 0 dim 0, argument 1 dim 0), seq in [1, 8192] (argument 0 dim 1)".
  std::string describe() const;

 private:
  std::vector<Symbol> symbols_;
  std::vector<Site> sites_;
};

}  // namespace tg::detail
