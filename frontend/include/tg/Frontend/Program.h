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

/// A compiled trace. Its inputs are the trace's arguments followed by its captured tensors;
/// the caller supplies both on every run (captures are read from their current storage, and a
/// graph segment reused in a later call captures that call's tensors).
class Program {
 public:
  virtual ~Program() = default;
  virtual std::vector<Tensor> run(const std::vector<Tensor>& inputs) = 0;
  /// The tg IR that was compiled, as text.
  virtual const std::string& ir() const = 0;
  /// Kernels launched per run (0 when the reference interpreter runs the graph).
  virtual size_t kernels() const = 0;
};

/// The tg IR `trace` imports to (no passes run).
std::string importedIr(const Trace& trace, const std::string& name);

/// Imports `trace` into tg IR, runs the pipeline and returns a runnable program for `device`.
/// Throws tg::Error on failure.
std::unique_ptr<Program> compileTrace(const Trace& trace, const JitOptions& options,
                                      Device device, const std::string& name);

}  // namespace tg::detail
