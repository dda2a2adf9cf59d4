//===- tg-opt.cpp - mlir-opt for the tg dialect and its passes ------------===//
//
// Parses, verifies, transforms and prints tg IR: the driver of the lit tests.
//   tg-opt input.mlir --canonicalize --tg-fuse --tg-assign-buffers
//
//===----------------------------------------------------------------------===//
#include "tg/Compiler/Context.h"
#include "tg/Transforms/Pipeline.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char** argv) {
  mlir::DialectRegistry registry;
  tg::compiler::registerDialects(registry);
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  tg::compiler::registerPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tg optimizer driver\n", registry));
}
