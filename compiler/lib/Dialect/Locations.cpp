//===- Locations.cpp - The user's source line in an MLIR location ---------===//
#include "tg/Dialect/Locations.h"

#include "mlir/IR/BuiltinAttributes.h"

namespace tg::ir {

SourceLoc sourceLocOf(mlir::Location loc) {
  if (auto file = mlir::dyn_cast<mlir::FileLineColLoc>(loc))
    return SourceLoc(file.getFilename().str(), file.getLine());
  if (auto name = mlir::dyn_cast<mlir::NameLoc>(loc)) {
    SourceLoc inner = sourceLocOf(name.getChildLoc());
    if (inner.known()) inner.function = name.getName().str();
    return inner;
  }
  if (auto fused = mlir::dyn_cast<mlir::FusedLoc>(loc)) {
    for (mlir::Location l : fused.getLocations()) {
      SourceLoc inner = sourceLocOf(l);
      if (inner.known()) return inner;
    }
  }
  return {};
}

}  // namespace tg::ir
