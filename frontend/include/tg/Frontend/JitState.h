//===- JitState.h - What a jit function keeps between calls (internal) ----===//
//
// Shared by Jit.cpp (the signature cache and the per-call path) and Segments.cpp (tracing
// with graph breaks). MLIR-free.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Frontend/DynamicDims.h"
#include "tg/Frontend/GraphCache.h"
#include "tg/Frontend/Program.h"
#include "tg/Frontend/SymbolicTrace.h"
#include "tg/Frontend/Tracer.h"

#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace tg::detail {

struct Signature {
  std::vector<graph::TensorType> types;
  Device device = Device::CPU;
  bool operator==(const Signature&) const = default;
};

/// What a replay checks about one captured tensor: the variable it was read through still
/// holds the tensor the trace saw (Binding.h).
struct CaptureGuard {
  BindingRef variable;
  uint64_t version = 0;
  bool direct = false;  ///< see CaptureSource::direct
  SourceLoc loc;        ///< the op that first read it
};

/// One signature's way of running.
struct Entry {
  Signature signature;
  /// Break-free: the one graph, replayed without running the lambda, with the tensors the
  /// lambda captured as its trailing inputs (checked by `guards` on every call). Null while
  /// the function has graph breaks, or reads a captured tensor through a temporary (then every
  /// call runs the lambda, and graphs come from the graph cache).
  CompiledGraph* graph = nullptr;
  std::vector<Tensor> captures;
  std::vector<CaptureGuard> guards;  ///< one per capture
  /// Dynamic dims: a graph compiled once for ranges of sizes serves every call whose
  /// arguments have `signature`'s dtypes, ranks and fixed dims, and whose symbols' sizes are
  /// in range: `fixed[s]` >= 0 for a symbol this variant holds at one size (a size of 1),
  /// else -1 (sizes from 2 up to the range's end). symbolOf[i][d]: the symbol of argument i's
  /// dim d, or -1.
  bool symbolic = false;
  std::vector<int64_t> fixed;
  std::vector<std::vector<int>> symbolOf;
  /// Symbols the lambda needs equal (SymbolicTrace::sameAs): a call serves only where
  /// symbol s has the size of sameAs[s] (>= 0).
  std::vector<int> sameAs;
  /// The inference's result, and the symbols' sizes the lambda has been traced at and found to
  /// build this very graph (checkSymbolicTrace): the first kSizeChecks sizes a variant serves
  /// are checked so, the later ones not (the per-call path then does no tracing).
  static constexpr size_t kSizeChecks = 8;
  std::shared_ptr<const SymbolicTrace> symbolicTrace;
  std::vector<std::vector<int64_t>> checkedSizes;
};

/// What one traced run of the lambda produced (runSegmented).
struct SegmentedResult {
  std::vector<Tensor> outputs;  ///< the lambda's results, concrete
  bool broke = false;           ///< a graph break happened
  /// Without a break: the one graph, and the captures it ran with and their sources.
  CompiledGraph* only = nullptr;
  std::vector<Tensor> captures;
  std::vector<CaptureSource> sources;
};

/// Dynamic dims with graph breaks (SegmentFit.h): one segment structure, with the symbols it
/// saw at a size of 1 held there. Its samples (the sizes of the calls that traced it, at most
/// kSamples distinct ones, and its sizes there) and the fits compiled from them.
struct ObservedSegment {
  static constexpr size_t kSamples = 24;
  std::vector<std::vector<int64_t>> values;
  std::vector<std::vector<int64_t>> slots;
  struct Fit {
    std::shared_ptr<const SymbolicTrace> trace;  ///< min == max for the symbols it holds
    CompiledGraph* graph = nullptr;
  };
  std::vector<Fit> fits;
  bool gaveUp = false;  ///< no fit from kSamples samples, or one that did not compile
};

struct JitState {
  JitOptions options;
  /// options.donate sorted, without repeats (checked against each call's arity).
  std::vector<int> donated;
  /// options.dynamic, checked (DynamicDims.h).
  DynamicDims dynamic;
  SourceLoc definedAt;
  std::string name;
  std::vector<std::unique_ptr<Entry>> entries;
  /// Dynamic dims: the variants compiled once for ranges of sizes (Entry::symbolic), and the
  /// symbols' sizes in the current call (scratch: the per-call path allocates nothing).
  std::vector<std::unique_ptr<Entry>> symbolicEntries;
  std::vector<int64_t> symbolValues;
  /// Dynamic dims, and the lambda has a graph break: calls run the lambda (one Entry for all
  /// their signatures), and its segments are compiled once for the sizes they follow from the
  /// calls that traced them (`segments`, by structure and held symbols).
  bool dynamicBreaks = false;
  std::unique_ptr<Entry> segmentedEntry;
  std::map<std::string, ObservedSegment> segments;
  Entry* last = nullptr;
  /// Every graph compiled for this function (GraphCache.h).
  GraphCache graphs{options, name};
  /// The report's counters and events (graphs and cache counts are added by report()).
  JitReport report;

  /// Adds `event` to `events`, merging it with an earlier one at the same place.
  static void note(std::vector<JitReport::Event>& events, const JitReport::Event& event);
};

/// Runs the lambda with tracing, cutting the trace at every graph break: each segment is
/// compiled (or found) and run, and the tensors the lambda still holds become concrete.
/// `symbolValues`: the call's sizes of the function's symbols (empty without dynamic dims).
SegmentedResult runSegmented(JitState& state, const std::vector<Tensor>& args,
                             const Signature& signature, TraceRef fn, std::span<const int64_t> symbolValues = {});

}  // namespace tg::detail
