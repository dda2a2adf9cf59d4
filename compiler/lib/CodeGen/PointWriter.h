//===- PointWriter.h - Region values computed at one element (internal) -----===//
//
// The attention emitters (EmitAttention.cpp, EmitAttentionFlash.cpp) compute the ops
// tg-fuse-attention cloned into the region per element where the kernel needs them: q at
// (b, m, d), the score modifier at (b, m, s).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "IndexExpr.h"
#include "KernelEmission.h"

#include "llvm/ADT/DenseMap.h"

#include <map>
#include <sstream>
#include <string>

namespace tg::codegen {

/// Writes C statements computing region values at one element: each op's operands at the same
/// indices (elementwise ops keep their shape), layout ops mapped to their roots' indices, a
/// concat's operand chosen by an if-chain, inputs loaded, splats as literals. Values bound by
/// name (the dot product, the softmax) are read as they are.
class PointWriter {
 public:
  /// With `extents` (over dynamic dims), index arithmetic follows each value's dims as
  /// extents that may be run-time sizes (IndexExpr.h's *Extents functions); the indices given
  /// to at() then come from elementOfExtents.
  PointWriter(std::ostringstream& os, std::string sfx, Precision precision, ExtentsOf extents = {})
      : os_(os), sfx_(std::move(sfx)), precision_(precision), extents_(std::move(extents)) {}

  void bind(mlir::Value v, std::string name) { bound_[v] = std::move(name); }
  /// Reads `with` wherever `v` is read (a mask's kept branch for the mask).
  void substitute(mlir::Value v, mlir::Value with) { substituted_[v] = with; }

  /// The C expression of `v` at `idx` (a local it declared, an input load, a literal).
  mlir::FailureOr<std::string> at(mlir::Value v, const DimIndices& idx);

 private:
  std::ostringstream& os_;
  std::string sfx_;
  Precision precision_;
  ExtentsOf extents_;
  llvm::DenseMap<mlir::Value, std::string> bound_;
  llvm::DenseMap<mlir::Value, mlir::Value> substituted_;
  std::map<std::string, std::string> memo_;
  int counter_ = 0;
};

/// (b, m, s) over `shape` [batch..., M, S]: the batch dims from the flat b; `row` and `col`
/// name the last two indices.
DimIndices elementOf(const Shape& shape, const char* row, const char* col);

/// The same over `shape` given as extents (over dynamic dims).
DimIndices elementOfExtents(const std::vector<Extent>& shape, const char* row, const char* col);

/// The static shape of `v`.
Shape shapeOf(mlir::Value v);

}  // namespace tg::codegen
