//===- Context.cpp - Shared MLIR context and diagnostic collection --------===//
#include "tg/Compiler/Context.h"

#include "tg/Dialect/TgDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/Support/raw_ostream.h"

namespace tg::compiler {

void registerDialects(mlir::DialectRegistry& registry) {
  registry.insert<tg::ir::TgDialect, mlir::func::FuncDialect>();
}

mlir::MLIRContext& sharedContext() {
  static mlir::MLIRContext* context = [] {
    mlir::DialectRegistry registry;
    registerDialects(registry);
    auto* ctx = new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
    // No "see current operation" note on every diagnostic: MLIR prints the op into it when the
    // diagnostic is made, numbering the whole function each time, so the fuser's remarks cost
    // O(ops^2) (0.5 s of a 12-layer decoder step's 0.54 s in tg-fuse); tg's messages name
    // the op and the user's line themselves.
    ctx->printOpOnDiagnostic(false);
    return ctx;
  }();
  return *context;
}

std::mutex& compileMutex() {
  static std::mutex mutex;
  return mutex;
}

DiagnosticCollector::DiagnosticCollector(mlir::MLIRContext& context) : context_(context) {
  handler_ = context_.getDiagEngine().registerHandler([this](mlir::Diagnostic& diag) {
    llvm::raw_string_ostream os(text_);
    SourceLoc where = ir::sourceLocOf(diag.getLocation());
    if (diag.getSeverity() == mlir::DiagnosticSeverity::Error && !firstErrorLoc_.known())
      firstErrorLoc_ = where;
    if (where.known()) os << where.str() << ": ";
    switch (diag.getSeverity()) {
      case mlir::DiagnosticSeverity::Error: os << "error: "; break;
      case mlir::DiagnosticSeverity::Warning: os << "warning: "; break;
      case mlir::DiagnosticSeverity::Remark: os << "remark: "; break;
      case mlir::DiagnosticSeverity::Note: os << "note: "; break;
    }
    os << diag.str() << "\n";
    for (const mlir::Diagnostic& note : diag.getNotes()) os << "  note: " << note.str() << "\n";
    return mlir::success();
  });
}

DiagnosticCollector::~DiagnosticCollector() {
  context_.getDiagEngine().eraseHandler(handler_);
}

}  // namespace tg::compiler
