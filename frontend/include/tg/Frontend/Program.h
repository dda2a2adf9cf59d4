//===- Program.h - A compiled trace, ready to run (internal) --------------===//
//
// The frontend's view of what compilation produces. Jit.cpp (MLIR-free) holds Programs; the
// MLIR-using side (frontend/lib/Import) builds them from Traces.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Frontend/Tracer.h"
#include "tg/tg.h"

#include <memory>
#include <string>
#include <vector>

namespace tg::detail {

class Program {
 public:
  virtual ~Program() = default;
  /// Runs on the call's arguments (captured tensors are appended by the program itself).
  virtual std::vector<Tensor> run(const std::vector<Tensor>& args) = 0;
  /// The tg IR that was compiled, as text.
  virtual const std::string& ir() const = 0;
};

/// Imports `trace` into tg IR, runs the pipeline and returns a runnable program for `device`.
/// Throws tg::Error on failure.
/// The tg IR `trace` imports to (no passes run).
std::string importedIr(const Trace& trace, const std::string& name);

std::unique_ptr<Program> compileTrace(const Trace& trace, const JitOptions& options,
                                      Device device, const std::string& name);

}  // namespace tg::detail
