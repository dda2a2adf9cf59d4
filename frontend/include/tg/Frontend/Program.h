//===- Program.h - A compiled trace, ready to run (internal) --------------===//
//
// The frontend's view of what compilation produces. Jit.cpp (MLIR-free) holds Programs; the
// MLIR-using side (frontend/lib/Backend: compileTrace, GpuProgram.h, InterpretedProgram.h)
// builds them from Traces.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Frontend/Tracer.h"
#include "tg/tg.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace tg::detail {

/// A program's inputs for one run, borrowed (no copies on the per-call path): the call's
/// arguments, then the tensors the trace captured.
struct ProgramInputs {
  std::span<const Tensor* const> args;
  std::span<const Tensor> captures;

  size_t size() const { return args.size() + captures.size(); }
  const Tensor& operator[](size_t i) const {
    return i < args.size() ? *args[i] : captures[i - args.size()];
  }
};

/// A compiled trace. Its inputs are the trace's arguments followed by its captured tensors;
/// the caller supplies both on every run (captures are read from their current storage, and a
/// graph segment reused in a later call captures that call's tensors).
class Program {
 public:
  virtual ~Program() = default;
  /// Runs on `inputs` and writes its results (numResults() of them) to `results`. `replay`
  /// marks the per-call path of a break-free jit function, which the GPU may launch as a CUDA
  /// graph; it allocates nothing but the results. `symbolValues`: a program compiled for
  /// ranges of sizes (dynamic dims) runs at these values of its symbols (in the order of
  /// DynamicDims::symbols); empty for one compiled for fixed shapes.
  virtual void execute(const ProgramInputs& inputs, std::span<Tensor> results, bool replay,
                       std::span<const int64_t> symbolValues) = 0;
  virtual size_t numResults() const = 0;
  /// The tg IR that was compiled, as text.
  virtual const std::string& ir() const = 0;
  /// Kernels launched per run (0 when the reference interpreter runs the graph).
  virtual size_t kernels() const = 0;
  /// Fills what the runtime knows for the report: CUDA graph use, peak device memory.
  virtual void describe(JitReport::Graph& info) const { (void)info; }

  /// execute() on a list of inputs, returning the results: for graph segments and eager ops,
  /// where the lambda runs anyway.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs) {
    std::vector<const Tensor*> args;
    args.reserve(inputs.size());
    for (const Tensor& t : inputs) args.push_back(&t);
    std::vector<Tensor> results(numResults());
    execute({args, {}}, results, /*replay=*/false, {});
    return results;
  }
};

/// A graph compiled for ranges of sizes, for the report: its symbols ("batch in [2, 64], seq =
/// 1") and the sizes of its last run (JitReport::Graph::symbols, lastSizes).
void describeSymbols(std::span<const std::string> names, std::span<const int64_t> min, std::span<const int64_t> max,
                     std::span<const int64_t> last, JitReport::Graph& info);

/// The tg IR `trace` imports to (no passes run).
struct SymbolicTrace;  // SymbolicTrace.h

std::string importedIr(const Trace& trace, const std::string& name);
/// The tg IR of a symbolic trace (TraceImporter.h's importSymbolicTrace), printed; empty with
/// the reason in `whyNot` when there is none.
std::string importedSymbolicIr(const SymbolicTrace& trace, const std::string& name, std::string& whyNot);

/// Compiles a symbolic trace (SymbolicTrace.h) once for its symbols' ranges: on CUDA one
/// symbolic plan (kernels that take the sizes as arguments), on the CPU its symbolic IR, which
/// the interpreter runs at each call's sizes. Throws tg::Error when a step does not take
/// dynamic dims yet (the caller then compiles per signature).
std::unique_ptr<Program> compileSymbolicTrace(const SymbolicTrace& trace, const JitOptions& options, Device device,
                                              const std::string& name,
                                              std::vector<std::pair<std::string, double>>* stagesMs = nullptr);

/// Imports `trace` into tg IR, runs the pipeline and returns a runnable program for `device`.
/// Throws tg::Error on failure.
/// `stagesMs`, when given, receives the wall time of each step (JitReport::Graph::compileStagesMs).
std::unique_ptr<Program> compileTrace(const Trace& trace, const JitOptions& options,
                                      Device device, const std::string& name,
                                      std::vector<std::pair<std::string, double>>* stagesMs = nullptr);

}  // namespace tg::detail
