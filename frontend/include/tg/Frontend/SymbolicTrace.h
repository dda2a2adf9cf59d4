//===- SymbolicTrace.h - A trace whose sizes are functions of symbols (internal) ===//
//
// A C++ lambda computes its shapes with plain integers (`tokens.shape()[0]`, `T - 1`,
// `{T, heads, hd}`), so one trace cannot tell which of its numbers follow a dynamic dim. tg
// finds out by tracing the lambda (recording only: nothing runs) at the call's sizes and at
// probe sizes, each symbol moved on its own by one (and, where the sizes do not move as
// affine functions, every combination), and fitting each number of the trace -- extents of
// every value, and the shape, start, limit and step attributes -- as a polynomial of degree at
// most one in each symbol: `T`, `T - 1`, `4*T`, `batch*seq`; so is the value of a splat
// constant that holds an integer (`pos + T`). Two traces at other sizes verify
// the fit (the largest size of each range, and one near its middle), which catches `T / 2`
// and `T * T`. The traces must agree in everything else (ops, operands, dtypes, ranks, other
// attributes, constants); where they do not, the graph depends on the size in a way no
// polynomial says, and the inference names the op and its line.
//
// Two symbols that the lambda needs equal (x [a, d] + y [b, d]) fail when a probe moves one
// alone; when they have one size in the call and trace when moved together, they become one
// (SymbolicTrace::sameAs), and the jit checks at each call that they are equal.
//
// Costs: the lambda runs (records) n + 3 times for n symbols, 2^n + 2 when some size is a
// product of symbols (n <= 4), plus a few for symbols the lambda needs equal. Its host side effects happen that often at a compilation. A
// graph break stops the inference (its segments would have to run to go on).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Frontend/DynamicDims.h"
#include "tg/Frontend/Tracer.h"
#include "tg/Support/SizeExpr.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tg::detail {

/// The size expressions of one trace node: its extents and its size attributes, each vector
/// as long as the node's own (TraceNode::type.shape, attrs.shape, starts, limits, steps).
struct SymbolicNode {
  std::vector<SizeExpr> dims;
  std::vector<SizeExpr> shape, starts, limits, steps;
  /// A splat constant of an integer value: that value (`pos + T` adds the size T).
  std::optional<SizeExpr> value;
};

struct SymbolicTrace {
  /// The trace at the call's sizes, and each node's sizes as expressions of the symbols.
  Trace trace;
  std::vector<SymbolicNode> nodes;
  /// The symbols' names (DynamicDims::names()), for printing, and the sizes this trace holds
  /// for: each symbol's range from 2 (a size of 1 broadcasts where larger ones do not), or for
  /// a fixed one its size in the call.
  std::vector<std::string> names;
  std::vector<int64_t> min, max;
  /// The symbols that stay fixed in this trace: a symbol of size 1 in the call (a size of 1
  /// broadcasts, so it is a variant of its own) or with fewer than 4 sizes from 2 in its
  /// range. Their sizes are the call's, as constants.
  std::vector<bool> fixed;
  /// Dims the lambda needs equal: sameAs[s] is the symbol whose size symbol s takes (-1: its
  /// own). Two symbols of one size in the call whose probes fail apart (an op's shapes must
  /// agree) but trace together; their range is the overlap of theirs. A call where they differ
  /// is not this trace's (the jit checks it at every call).
  std::vector<int> sameAs;
  /// What checkSymbolicTrace compares a trace at other sizes with: the trace's structure (its
  /// key with every size zeroed) and every size slot's polynomial, in slot order.
  std::string structure;
  std::vector<SizeExpr> slots;
  /// Lines like "result 0: bf16[batch*seq, 1024]", then each op with a size that depends on a
  /// symbol ("%12 reshape at model.cpp:40: bf16[seq, 16, 64], shape [seq, 16, 64]"), the
  /// first `maxNodes` of them and a count of the rest.
  std::string str(size_t maxNodes = SIZE_MAX) const;
};

struct SymbolicInference {
  std::optional<SymbolicTrace> trace;
  /// Why there is none: which op (and line) depends on a size in a way the fit cannot say.
  std::string whyNot;
  /// Traces recorded (the call's sizes included).
  int traces = 0;
  /// The lambda has a graph break: its segments are fitted from the calls instead
  /// (SegmentFit.h).
  bool graphBreak = false;
};

/// A trace taken apart: its structure (the structural key with every size zeroed) and its
/// sizes in slot order (each node's extents, shape, starts, limits and steps, then the value
/// of a splat holding an integer).
struct TraceSizes {
  std::string structure;
  std::vector<int64_t> slots;
};
TraceSizes traceSizes(const Trace& trace);

/// The symbolic trace of `trace` whose slots (traceSizes' order) are `fitted`: the symbols'
/// names, each one's range [min, max] (a fixed one's is its size), which are fixed, and the
/// symbols they take their size from (SymbolicTrace::sameAs).
SymbolicTrace symbolicTraceOf(Trace trace, std::vector<SizeExpr> fitted, std::vector<std::string> names,
                              std::vector<int64_t> min, std::vector<int64_t> max, std::vector<bool> fixed,
                              std::vector<int> sameAs);

/// Traces `fn` for arguments of `types` on `device` at the symbols' sizes `values` and at
/// probe sizes, and fits the trace's numbers as polynomials of the symbols (see above).
/// `donated`: JitOptions::donate, as the real trace gets it.
SymbolicInference inferSymbolicTrace(TraceRef fn, const std::vector<graph::TensorType>& types, Device device,
                                     const DynamicDims& dims, const std::vector<int64_t>& values,
                                     const std::vector<int>& donated);

/// Traces `fn` for arguments of `types` (recording only) and checks that it is `trace` at the
/// symbols' sizes `values`: the same ops, dtypes, ranks and constants, every size the fitted
/// polynomial's value. Empty when it is; else what differs, with the op's line. (The
/// inference compares a few sizes only; the jit checks the first sizes each compiled graph
/// meets with this.)
std::string checkSymbolicTrace(const SymbolicTrace& trace, TraceRef fn, const std::vector<graph::TensorType>& types,
                               Device device, std::span<const int64_t> values, const std::vector<int>& donated);

}  // namespace tg::detail
