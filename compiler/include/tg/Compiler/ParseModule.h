//===- ParseModule.h - Textual tg IR in: parse, verify, check the function ===//
//
// The front door for IR as text (`tgc dump FILE.mlir`, `tgc run`, the IR fuzz target): MLIR's
// parser, MLIR's verifier, then ir::entryFunction (one func.func of tg tensors and tg ops).
// Every failure is an MLIR diagnostic on the context, so the caller's DiagnosticCollector
// turns it into one tg::Error.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tg::compiler {

/// Where and why MLIR 22's own parser would crash on some text.
struct ParserCrash {
  unsigned line = 0;  ///< 1-based
  std::string why;
};
/// The first construct in `text` that crashes MLIR 22's own parser, if any. The one case known
/// (found by fuzzing tgc): a dense array whose element type is `index` or a type alias,
/// `array<index: 1>` or `array<!t: 1>` (SIGSEGV in mlir-opt too). tg's IR never holds one.
std::optional<ParserCrash> knownParserCrash(llvm::StringRef text);

/// Parses `text` (named `bufferName` in diagnostics, e.g. the file name) into `context`,
/// verifies it and checks it with ir::entryFunction. Null on failure, with diagnostics on the
/// context saying why. A module with dynamic dims is returned as it is (compiled for its
/// symbols' ranges).
mlir::OwningOpRef<mlir::ModuleOp> parseTgModule(llvm::StringRef text, llvm::StringRef bufferName,
                                                mlir::MLIRContext& context);

/// The same, with a module whose function has dynamic dims (`tg.symbols`, issue 18)
/// instantiated at `sizes` when any are given (each symbol's name and size: SymbolicTypes.h's
/// instantiateModule) and the static module returned: tgc's `--sizes`, for functions with
/// kernels that tg does not generate over dynamic dims yet. With sizes, a symbol without one,
/// a size outside its range, a name the function does not have, or a module without dynamic
/// dims are errors.
mlir::OwningOpRef<mlir::ModuleOp> parseTgModuleAtSizes(llvm::StringRef text, llvm::StringRef bufferName,
                                                       mlir::MLIRContext& context,
                                                       const std::vector<std::pair<std::string, int64_t>>& sizes);

}  // namespace tg::compiler
