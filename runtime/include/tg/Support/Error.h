//===- Error.h - tg::Error, the one exception users see -------------------===//
//
// Every user mistake (shape or dtype mismatch, bad axis, malformed IR, no GPU where one is
// required, ...) is reported as a tg::Error carrying the message and, where known, the user's
// source line. Internal invariants are asserts, not Errors. Standard-library only.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <source_location>
#include <stdexcept>
#include <string>

namespace tg {

/// A place in the user's source code: file, line and enclosing function.
struct SourceLoc {
  std::string file;
  unsigned line = 0;
  std::string function;

  SourceLoc() = default;
  SourceLoc(std::string file, unsigned line, std::string function = {})
      : file(std::move(file)), line(line), function(std::move(function)) {}
  static SourceLoc from(const std::source_location& loc) {
    return SourceLoc(loc.file_name(), loc.line(), loc.function_name());
  }

  bool known() const { return !file.empty(); }
  /// "file:line" (or "<unknown location>").
  std::string str() const;
  /// `function` as a person reads it: template argument lists shortened to "<...>", a lambda
  /// as "a lambda in f()" instead of the compiler's spelling of its operator() (empty if
  /// unknown).
  std::string readableFunction() const;
};

/// The exception for every user-facing failure. what() reads
/// "file:line: error: message (in function)" when the location is known.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, SourceLoc loc = {});

  /// The message alone, without the location prefix.
  const std::string& message() const { return message_; }
  const SourceLoc& location() const { return loc_; }

 private:
  std::string message_;
  SourceLoc loc_;
};

/// Thrown under jit(fn, {.fullgraph = true}) at the first graph break.
class GraphBreakError : public Error {
 public:
  using Error::Error;
};

/// Thrown when the GPU cannot allocate memory. The message names the bytes asked for and, when
/// a jit function asked, the function (the location is then the call's line). Nothing is left
/// half-done: the process can free memory, or use smaller tensors, and go on.
class OutOfMemoryError : public Error {
 public:
  using Error::Error;
};

}  // namespace tg
