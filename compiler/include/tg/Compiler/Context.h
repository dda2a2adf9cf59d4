//===- Context.h - The MLIR context tg compiles in, and its diagnostics ---===//
#pragma once

#include "tg/Dialect/Locations.h"
#include "tg/Support/Error.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"

#include <mutex>
#include <string>

namespace tg::compiler {

/// Registers every dialect tg's IR uses (tg, func) in `registry`.
void registerDialects(mlir::DialectRegistry& registry);

/// The process-wide context jit compilation uses, with tg's dialects loaded. Multithreading is
/// off: tg's graphs are small and a thread pool would cost more than it saves.
mlir::MLIRContext& sharedContext();

/// Held while compiling in the shared context (diagnostic handlers are per context).
std::mutex& compileMutex();

/// Collects the diagnostics emitted on a context while it lives (instead of printing them),
/// so that a failure can be reported as one tg::Error.
class DiagnosticCollector {
 public:
  explicit DiagnosticCollector(mlir::MLIRContext& context);
  ~DiagnosticCollector();

  /// Every diagnostic so far, one per line, with its location.
  std::string text() const { return text_; }
  /// The location of the first error, if it carried one.
  const SourceLoc& firstErrorLoc() const { return firstErrorLoc_; }

 private:
  mlir::MLIRContext& context_;
  mlir::DiagnosticEngine::HandlerID handler_;
  std::string text_;
  SourceLoc firstErrorLoc_;
};

}  // namespace tg::compiler
