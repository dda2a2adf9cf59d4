//===- FuzzIr.cpp - libFuzzer target: textual IR through the whole compiler ===//
//
// Every input is IR text. It is parsed, verified and checked as `tgc dump` does
// (compiler::parseTgModule), then compiled by compiler::compile to CUDA C++ (no NVRTC: too
// slow per input). A module that parses but is not one tg function goes through the pass
// pipeline anyway, as `tg-opt --tg-pipeline` runs it. Bad IR must end in a diagnostic or a
// tg::Error: a crash, an assertion, another exception, a hang or an unbounded allocation is a
// bug. The target, the fusion switch and the matmul options vary with a hash of the input, so
// that one corpus reaches the wgmma, mma_sync and simt emitters.
//
// Each input gets a fresh MLIRContext: the shared one would keep every type and attribute of
// every input (uniqued, never freed) and grow without bound over a fuzzing run.
//
//===----------------------------------------------------------------------===//
#include "tg/Compiler/Context.h"
#include "tg/Compiler/Driver.h"
#include "tg/Compiler/ParseModule.h"
#include "tg/Support/Error.h"
#include "tg/Transforms/Pipeline.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A copy: MLIR's lexer reads the NUL after the text, which libFuzzer's bytes do not have.
  const std::string owned(reinterpret_cast<const char*>(data), size);
  const std::string_view text(owned);
  mlir::DialectRegistry registry;
  tg::compiler::registerDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  mlir::ScopedDiagnosticHandler quiet(&context, [](mlir::Diagnostic&) { return mlir::success(); });

  const size_t hash = std::hash<std::string_view>{}(text);
  tg::compiler::PipelineOptions options;
  options.codegen.arch = hash % 3 == 0 ? "sm_90a" : hash % 3 == 1 ? "sm_80" : "sm_75";
  options.fuse = (hash / 3) % 4 != 0;
  options.codegen.smCount = 132;
  if ((hash / 12) % 5 == 0) options.codegen.precision = tg::Precision::Accurate;

  mlir::OwningOpRef<mlir::ModuleOp> module =
      tg::compiler::parseTgModule(llvm::StringRef(text.data(), text.size()), "fuzz.mlir", context);
  if (module) {
    try {
      (void)tg::compiler::compile(*module, options);
    } catch (const tg::Error&) {
      // A diagnostic: what bad IR must end in.
    }
    return 0;
  }
  // Not one tg function (or not valid at all): what tg-opt would still run the passes on.
  if (tg::compiler::knownParserCrash(llvm::StringRef(text.data(), text.size()))) return 0;
  mlir::OwningOpRef<mlir::ModuleOp> any =
      mlir::parseSourceString<mlir::ModuleOp>(llvm::StringRef(owned.c_str(), owned.size()), &context);
  if (!any || mlir::failed(mlir::verify(*any))) return 0;
  mlir::PassManager pm(&context);
  tg::compiler::buildPipeline(pm, options);
  (void)pm.run(*any);
  return 0;
}
