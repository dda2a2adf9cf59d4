//===- IndexExpr.h - Offset arithmetic for generated kernels (internal) ---===//
//
// Small expression trees over unsigned index variables (the element a thread works on), with
// the simplifications that matter for readable, cheap kernels: x / 1, x % n when x < n, nested
// divisions, multiplications by 0/1, and linearize(delinearize(x)) == x. Printed as C.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Support/DType.h"

#include "mlir/IR/Value.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tg::codegen {

/// An extent (or stride) of index arithmetic: a number, or over dynamic dims a size the kernel
/// takes as an argument, the member `name` of its TgBody, at most `value` (at least 1).
struct Extent {
  int64_t value = 1;
  std::string name;
  bool isStatic() const { return name.empty(); }
};

class IndexExpr {
 public:
  /// A variable named `name` taking values in [0, bound).
  static IndexExpr var(const std::string& name, int64_t bound);
  static IndexExpr constant(int64_t value);

  IndexExpr operator/(int64_t d) const;
  IndexExpr operator%(int64_t m) const;
  IndexExpr operator*(int64_t c) const;
  IndexExpr operator+(const IndexExpr& other) const;
  /// The same by an extent that may be a run-time size (printed as the member, cast to the
  /// index type its literals' suffix names).
  IndexExpr operator/(const Extent& d) const;
  IndexExpr operator%(const Extent& m) const;
  IndexExpr operator*(const Extent& c) const;

  /// q * e + r, written `a` when q is a / e and r is a % e (a linearization of a
  /// delinearization: a reshape), nested static divisions included ((x / 64) * 4 + (x / 16) % 4
  /// is x / 16).
  static IndexExpr combine(const IndexExpr& q, const Extent& e, const IndexExpr& r);

  bool isConstant(int64_t value) const;
  /// Exclusive upper bound of the value.
  int64_t bound() const;
  /// C text, with literals suffixed for `indexType` ("u" or "ull").
  std::string str(const std::string& suffix) const;

 private:
  struct Node;
  explicit IndexExpr(std::shared_ptr<const Node> n) : node_(std::move(n)) {}
  std::shared_ptr<const Node> node_;
  friend bool sameExpr(const IndexExpr& a, const IndexExpr& b);
};

bool sameExpr(const IndexExpr& a, const IndexExpr& b);

/// The per-dimension indices of a value, plus (when known) the linear index they came from.
struct DimIndices {
  std::vector<IndexExpr> dims;
  Shape shape;
  std::shared_ptr<IndexExpr> linear;  ///< Set when dims is exactly delinearize(*linear).
};

/// Row-major decomposition of `linear` over `shape`.
DimIndices delinearize(const IndexExpr& linear, const Shape& shape);
/// Row-major linear index of `dims` (returns the original linear index when there is one).
IndexExpr linearize(const DimIndices& dims);

/// The operand scalarExpr takes for a tg.iota at `idx` (indices over its own shape): the index
/// along its axis.
std::string iotaOperand(mlir::Operation* iota, const DimIndices& idx, const std::string& suffix);

/// Over dynamic dims (issue 18): an index a kernel cannot compute without run-time extents.
/// Index arithmetic puts it where such an extent is needed; a kernel whose text holds it is
/// refused (the function is compiled per signature instead).
inline constexpr const char* kUnknownIndex = "__run_time_extent";

/// Over dynamic dims: whether a read of `value` through its layout chain can use the index
/// arithmetic of static shapes: every op of the chain a broadcast or between static types
/// (reshapes, transposes and slices of symbolic types, and slices whose bounds are sizes, need
/// run-time extents or starts), and every dim of
/// the root after its first static (its strides are numbers).
bool staticIndexable(mlir::Value value);

/// Maps the indices of `value` through the layout chain that defines it (broadcast, transpose,
/// reshape) down to its root, which is returned in `root`.
DimIndices mapToRoot(mlir::Value value, DimIndices indices, mlir::Value& root);

/// Over dynamic dims, index arithmetic with run-time extents: a value's dims as extents
/// (`extentsOf`: each dim's number, or the size argument that holds it), the row-major
/// decomposition of `linear` over them (the first dim unreduced: `linear` is inside the value)
/// and its inverse, and the map of a layout chain to its root. `dims` of the result of
/// delinearizeExtents hold the indices; its `shape` is unused.
using ExtentsOf = std::function<std::optional<std::vector<Extent>>(mlir::Value)>;
DimIndices delinearizeExtents(const IndexExpr& linear, const std::vector<Extent>& shape);
IndexExpr linearizeExtents(const std::vector<IndexExpr>& dims, const std::vector<Extent>& shape);
/// A slice's start along `dim` that depends on the symbols, as a run-time size (nothing: not
/// known).
using SliceStartOf = std::function<std::optional<Extent>(mlir::Operation* slice, size_t dim)>;
/// Nothing when the chain has an op this cannot follow (a slice whose starts depend on the
/// symbols, without `startOf`; one whose steps do) or `extentsOf` fails.
std::optional<std::vector<IndexExpr>> mapToRootExtents(mlir::Value value, std::vector<IndexExpr> indices,
                                                       const ExtentsOf& extentsOf, mlir::Value& root,
                                                       const SliceStartOf& startOf = {});

}  // namespace tg::codegen
