//===- Locations.h - The user's source line in an MLIR location -----------===//
//
// The importer gives every op the user's file:line (a FileLineColLoc inside a NameLoc naming
// the function); verifiers, fusion remarks, the interpreter's errors and the driver's
// diagnostics read it back with sourceLocOf.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Support/Error.h"

#include "mlir/IR/Location.h"

namespace tg::ir {

/// The user's source location carried by an MLIR location (FileLineColLoc, possibly inside a
/// NameLoc or FusedLoc), if any.
SourceLoc sourceLocOf(mlir::Location loc);

}  // namespace tg::ir
