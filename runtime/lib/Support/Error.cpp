//===- Error.cpp - Formatting of tg::Error --------------------------------===//
#include "tg/Support/Error.h"

namespace tg {

std::string SourceLoc::str() const {
  if (!known()) return "<unknown location>";
  return file + ":" + std::to_string(line);
}

namespace {

/// `name` with every template argument list replaced by "<...>" (the compiler's "<lambda(...)>"
/// and "<unnamed>" tags and operator<, operator<< stay).
std::string shortenTemplates(const std::string& name) {
  auto endsWith = [&](size_t i, const char* word) {
    const size_t n = std::char_traits<char>::length(word);
    return i >= n && name.compare(i - n, n, word) == 0;
  };
  std::string out;
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (depth == 0 && c == '<' && !endsWith(i, "operator") && !endsWith(i, "operator<") &&
        name.compare(i, 7, "<lambda") != 0 && name.compare(i, 9, "<unnamed>") != 0) {
      depth = 1;
      out += "<...>";
    } else if (depth > 0) {
      depth += c == '<' ? 1 : c == '>' ? -1 : 0;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string SourceLoc::readableFunction() const {
  std::string name = shortenTemplates(function);
  // GCC and Clang spell a lambda's call operator "f()::<lambda(args)>" (GCC),
  // "auto f()::(anonymous class)::operator()(args) const" (older Clang) or
  // "auto f()::(lambda)::operator()(args) const" (Clang 22, found by the sanitizer build).
  size_t lambda = name.find("::<lambda");
  if (lambda == std::string::npos) lambda = name.find("::(anonymous class)");
  if (lambda == std::string::npos) lambda = name.find("::(lambda)");
  if (lambda != std::string::npos) {
    std::string outer = name.substr(0, lambda);
    if (size_t space = outer.rfind(' ', outer.find('(')); space != std::string::npos)
      outer = outer.substr(space + 1);  // drop a return type
    name = "a lambda in " + outer;
  }
  constexpr size_t kMax = 120;
  if (name.size() > kMax) name = name.substr(0, kMax - 3) + "...";
  return name;
}

static std::string formatError(const std::string& message, const SourceLoc& loc) {
  if (!loc.known()) return "error: " + message;
  std::string text = loc.str() + ": error: " + message;
  if (!loc.function.empty()) text += " (in " + loc.readableFunction() + ")";
  return text;
}

Error::Error(const std::string& message, SourceLoc loc)
    : std::runtime_error(formatError(message, loc)), message_(message), loc_(std::move(loc)) {}

}  // namespace tg
