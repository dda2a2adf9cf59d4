//===- IndexedRead.h - Elements read at indices the kernel computes (internal) ===//
#pragma once

#include "IndexExpr.h"
#include "KernelEmission.h"

#include <ostream>
#include <string>

namespace tg::codegen {

/// The C expression of `operand` (a fusion block argument read through its layout chain, or a
/// splat) at `dims`, its indices over the operand's shape: converted to the compute type, or,
/// with `raw`, in its storage type. Fails when the operand is neither. With `extents` (over
/// dynamic dims) the index arithmetic follows the values' extents, size arguments included.
mlir::FailureOr<std::string> readInput(mlir::Value operand, const DimIndices& dims, const std::string& sfx,
                                       bool raw = false, const ExtentsOf* extents = nullptr);

/// Declares `name`, the i32 value of the one-element tensor `start`, checked to lie in
/// [0, bound] (a number, or C text of one): outside, check site `id` is written into `flag` and
/// the value clamped.
mlir::LogicalResult checkedStart(mlir::Operation* op, mlir::Value start, const std::string& bound, int64_t id,
                                 const std::string& name, const std::string& sfx, std::ostream& os);
mlir::LogicalResult checkedStart(mlir::Operation* op, mlir::Value start, int64_t bound, int64_t id,
                                 const std::string& name, const std::string& sfx, std::ostream& os);

/// Element `i` of an op that reads at computed indices (isIndexedRead: concat, gather,
/// dynamic_slice, dynamic_update_slice) as a local it declares in `os`; returns its name.
/// Gather and the dynamic ops use `flag` (see writesCheckFlag).
/// A concat's operands may be recomputed ops (isRecomputed), computed here at the operand's
/// index in `precision`. With `extents` (over dynamic dims), i is delinearized and the operands
/// read over the values' extents; the axis an op indexes along must be static.
mlir::FailureOr<std::string> indexedElement(mlir::Operation* op, const IndexExpr& i, const std::string& sfx,
                                            int& counter, std::ostream& os, Precision precision,
                                            const ExtentsOf* extents = nullptr);

/// Whether a kernel of `fusion` checks indices read from tensors: its TgBody then ends with
/// `int* flag`, and its launch passes the plan's check flag after the results.
bool writesCheckFlag(ir::FusionOp fusion);

}  // namespace tg::codegen
