//===- tg-opt.cpp - mlir-opt for the tg dialect and its passes ------------===//
//
// Parses, verifies, transforms and prints tg IR: the driver of the lit tests.
//   tg-opt input.mlir --canonicalize --tg-fuse-elementwise
//
//===----------------------------------------------------------------------===//
#include "tg/Compiler/Context.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char** argv) {
  mlir::DialectRegistry registry;
  tg::compiler::registerDialects(registry);
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tg optimizer driver\n", registry));
}
