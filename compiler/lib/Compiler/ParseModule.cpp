//===- ParseModule.cpp - Textual tg IR in ---------------------------------===//
#include "tg/Compiler/ParseModule.h"

#include "tg/Dialect/EntryFunction.h"
#include "tg/Dialect/SymbolicTypes.h"

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
  return parseTgModuleAtSizes(text, bufferName, context, {});
}

OwningOpRef<ModuleOp> parseTgModuleAtSizes(llvm::StringRef text, llvm::StringRef bufferName, MLIRContext& context,
                                           const std::vector<std::pair<std::string, int64_t>>& sizes) {
  if (std::optional<ParserCrash> crash = knownParserCrash(text)) {
    emitError(FileLineColLoc::get(&context, bufferName, crash->line, 1)) << crash->why;
    return {};
  }
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, bufferName), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, &context);
  if (!module || failed(verify(*module))) return {};
  Operation* first = module->getBody()->empty() ? nullptr : &module->getBody()->front();
  std::string error;
  std::optional<ir::Symbols> symbols = first ? ir::symbolsOf(first, error) : std::nullopt;
  if (!symbols) {
    if (!sizes.empty()) {
      emitError(module->getLoc()) << "sizes were given, but the module has no dynamic dims (tg.symbols)";
      return {};
    }
    if (failed(ir::entryFunction(*module))) return {};
    return module;
  }
  if (sizes.empty()) {  // compiled for the symbols' ranges
    if (failed(ir::entryFunction(*module))) return {};
    return module;
  }
  std::vector<int64_t> values;
  for (const std::string& name : symbols->names) {
    auto it = std::find_if(sizes.begin(), sizes.end(), [&](const auto& s) { return s.first == name; });
    if (it == sizes.end()) {
      emitError(first->getLoc()) << "sizes were given, but not for '" << name
                                 << "': give every symbol a size (tgc --sizes " << name << "=N,...)";
      return {};
    }
    values.push_back(it->second);
  }
  for (const auto& [name, size] : sizes)
    if (std::find(symbols->names.begin(), symbols->names.end(), name) == symbols->names.end()) {
      emitError(first->getLoc()) << "a size is given for '" << name << "', which is not one of the function's tg.symbols";
      return {};
    }
  OwningOpRef<ModuleOp> instance = ir::instantiateModule(*module, values, error);
  if (!instance) {
    emitError(first->getLoc()) << error;
    return {};
  }
  if (failed(ir::entryFunction(*instance))) return {};
  return instance;
}

}  // namespace tg::compiler
