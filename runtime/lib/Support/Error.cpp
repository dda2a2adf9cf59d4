//===- Error.cpp - Formatting of tg::Error --------------------------------===//
#include "tg/Support/Error.h"

namespace tg {

std::string SourceLoc::str() const {
  if (!known()) return "<unknown location>";
  return file + ":" + std::to_string(line);
}

static std::string formatError(const std::string& message, const SourceLoc& loc) {
  if (!loc.known()) return "error: " + message;
  std::string text = loc.str() + ": error: " + message;
  if (!loc.function.empty()) text += " (in " + loc.function + ")";
  return text;
}

Error::Error(const std::string& message, SourceLoc loc)
    : std::runtime_error(formatError(message, loc)), message_(message), loc_(std::move(loc)) {}

}  // namespace tg
