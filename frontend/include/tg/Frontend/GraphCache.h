//===- GraphCache.h - The graphs one jit function compiled (internal) -----===//
//
// Keyed by the device and the trace's structural key (ops, attributes, types, constants):
// a graph, or a segment between graph breaks, seen before is never compiled again, whichever
// call or signature traced it. MLIR-free; compileTrace does the compiling.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Frontend/Program.h"
#include "tg/Frontend/Tracer.h"
#include "tg/tg.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace tg::detail {

/// A compiled graph: a whole break-free function, or one segment between graph breaks.
struct CompiledGraph {
  std::unique_ptr<Program> program;
  JitReport::Graph info;
  /// Set when a break-free trace of this graph could not be replayed (the lambda runs on
  /// every call): why.
  std::string notReplayedBecause;
};

struct SymbolicTrace;

class GraphCache {
 public:
  /// Graphs compile with `options`, named after `name` (the first `name`, the Nth after it
  /// `name_gN`).
  GraphCache(const JitOptions& options, const std::string& name) : options_(options), name_(name) {}

  /// The compiled graph of `trace` on `device`, compiling it on first sight. A compilation
  /// that throws leaves nothing behind (the next call tries again).
  CompiledGraph& get(const Trace& trace, Device device);

  /// The graph compiled once for a symbolic trace's ranges of sizes (SymbolicTrace.h) on
  /// `device`, compiling it unless one with the same structure and `variant` (the sizes it
  /// holds fixed) was. Throws tg::Error when it cannot be compiled for the ranges.
  CompiledGraph& getSymbolic(const SymbolicTrace& trace, Device device, const std::string& variant);
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  size_t size() const { return graphs_.size(); }
  /// Every graph, in key order (JitReport::Graph::index gives the compile order).
  const std::map<std::string, std::unique_ptr<CompiledGraph>>& graphs() const { return graphs_; }

 private:
  /// The graph under `key`, made by `compile` (given its name) on first sight.
  CompiledGraph& find(const std::string& key, const Trace& trace,
                      const std::function<std::unique_ptr<Program>(const std::string&, CompiledGraph&)>& compile);
  const JitOptions& options_;
  const std::string& name_;
  std::map<std::string, std::unique_ptr<CompiledGraph>> graphs_;
  uint64_t hits_ = 0, misses_ = 0;
};

}  // namespace tg::detail
