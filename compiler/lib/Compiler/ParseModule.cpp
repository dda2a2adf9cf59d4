//===- ParseModule.cpp - Textual tg IR in ---------------------------------===//
#include "tg/Compiler/ParseModule.h"

#include "tg/Dialect/EntryFunction.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cctype>

using namespace mlir;

namespace tg::compiler {

namespace {

bool isIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
}

/// A cursor over IR text that skips what the lexer skips (whitespace, NUL bytes, `//`
/// comments) and never looks inside string literals.
struct Scanner {
  llvm::StringRef s;
  size_t pos = 0;

  void skipTrivia() {
    while (pos < s.size()) {
      // MLIR's lexer also skips NUL bytes inside the buffer (only the final one ends it).
      if (std::isspace(static_cast<unsigned char>(s[pos])) || s[pos] == '\0') {
        ++pos;
      } else if (s.substr(pos).starts_with("//")) {
        size_t end = s.find('\n', pos);
        pos = end == llvm::StringRef::npos ? s.size() : end + 1;
      } else {
        return;
      }
    }
  }
  void skipString() {  // at the opening quote
    for (++pos; pos < s.size() && s[pos] != '"'; ++pos)
      if (s[pos] == '\\') ++pos;
    ++pos;
  }
};

}  // namespace

std::optional<ParserCrash> knownParserCrash(llvm::StringRef text) {
  Scanner sc{text};
  while (sc.pos < text.size()) {
    char c = text[sc.pos];
    if (c == '"') {
      sc.skipString();
      continue;
    }
    if (text.substr(sc.pos).starts_with("//")) {
      sc.skipTrivia();
      continue;
    }
    bool word = text.substr(sc.pos).starts_with("array") &&
                (sc.pos == 0 || !isIdentifierChar(text[sc.pos - 1]));
    if (!word) {
      ++sc.pos;
      continue;
    }
    size_t start = sc.pos;
    sc.pos += 5;
    if (sc.pos < text.size() && isIdentifierChar(text[sc.pos])) continue;  // `arrays`, ...
    sc.skipTrivia();
    if (sc.pos >= text.size() || text[sc.pos] != '<') continue;
    ++sc.pos;
    sc.skipTrivia();
    llvm::StringRef rest = text.substr(sc.pos);
    bool alias = rest.starts_with("!");
    bool index = rest.starts_with("index") && (rest.size() == 5 || !isIdentifierChar(rest[5]));
    if (alias || index) {
      auto line = static_cast<unsigned>(text.substr(0, start).count('\n') + 1);
      return ParserCrash{line, std::string("a dense array of ") +
                                   (index ? "`index`" : "type-alias") + " elements (`array<" +
                                   (index ? "index" : "!...") +
                                   ": ...>`) is refused before parsing: it crashes MLIR 22's "
                                   "parser (tg's attributes are `array<i64: ...>`)"};
    }
  }
  return std::nullopt;
}

OwningOpRef<ModuleOp> parseTgModule(llvm::StringRef text, llvm::StringRef bufferName,
                                    MLIRContext& context) {
  if (std::optional<ParserCrash> crash = knownParserCrash(text)) {
    emitError(FileLineColLoc::get(&context, bufferName, crash->line, 1)) << crash->why;
    return {};
  }
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, bufferName), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, &context);
  if (!module) return {};
  if (failed(verify(*module)) || failed(ir::entryFunction(*module))) return {};
  return module;
}

}  // namespace tg::compiler
