//===- SymbolicTrace.cpp - Fitting a trace's sizes as polynomials of symbols ===//
//
// See SymbolicTrace.h. A trace is split into its structure (structuralKey of a copy with every
// size zeroed) and its sizes (the "slots", in node order: extents, then the shape, start, limit
// and step attributes). Traces at other sizes must have the same structure; each slot is then
// fitted from its values at the probes.
//
//===----------------------------------------------------------------------===//
#include "tg/Frontend/SymbolicTrace.h"
#include "tg/Support/SizeFit.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace tg::detail {

namespace {

/// A lambda's graph break while probing: the probe stops there.
struct ProbeBreak {
  JitReport::Event event;
};

class ThrowOnBreak : public BreakHandler {
 public:
  void onBreak(const Tensor&, JitReport::Event event) override { throw ProbeBreak{std::move(event)}; }
};

/// Where a slot is, for messages.
struct SlotPlace {
  int node = 0;
  const char* field = "";
  int index = 0;
};

/// A trace taken apart: its structure and its sizes.
struct Sample {
  Trace trace;
  std::string structure;
  std::vector<std::string> nodeKeys;  ///< each node's part of `structure`
  std::vector<int64_t> slots;
  std::vector<SlotPlace> places;
};

/// The vectors of a node that hold sizes, with their names, in slot order.
template <typename Node, typename Fn>
void forEachSizeVector(Node& node, Fn&& fn) {
  fn(node.type.shape, "extent");
  fn(node.attrs.shape, "shape");
  fn(node.attrs.starts, "start");
  fn(node.attrs.limits, "limit");
  fn(node.attrs.steps, "step");
}

/// The value of a splat constant that holds an integer (i32, or a float with an integral value
/// that f32 holds exactly), which may be a size; empty for other nodes.
std::optional<int64_t> integerSplat(const TraceNode& node) {
  if (node.kind != graph::OpKind::Constant || !node.splat || !node.constant.defined()) return std::nullopt;
  const DType t = node.constant.dtype();
  if (t == DType::I32) return node.constant.intAt(0);
  if (!is_floating(t)) return std::nullopt;
  const float v = node.constant.floatAt(0);
  if (!std::isfinite(v) || v != std::floor(v) || std::fabs(v) > 16777216.0f) return std::nullopt;
  return static_cast<int64_t>(v);
}

Sample takeApart(Trace trace) {
  Sample s;
  Trace skeleton = trace;
  for (size_t n = 0; n < skeleton.nodes.size(); ++n) {
    TraceNode& node = skeleton.nodes[n];
    forEachSizeVector(node, [&](std::vector<int64_t>& v, const char* field) {
      for (size_t i = 0; i < v.size(); ++i) {
        s.slots.push_back(v[i]);
        s.places.push_back({static_cast<int>(n), field, static_cast<int>(i)});
        v[i] = 0;
      }
    });
    // The sites of index checks carry their extents in their messages; which one a trace got
    // is not structure. (The messages of a symbolic program will have to be made per size.)
    node.attrs.checkId = 0;
    // A splat of an integer value may be a size too (`pos + T`).
    if (std::optional<int64_t> v = integerSplat(node)) {
      s.slots.push_back(*v);
      s.places.push_back({static_cast<int>(n), "value", 0});
      node.constant = ref::HostTensor(node.constant.dtype(), node.constant.shape());
    }
    appendNodeKey(s.nodeKeys.emplace_back(), node);
  }
  s.structure = structuralKey(skeleton);
  s.trace = std::move(trace);
  return s;
}

/// The lambda's trace for arguments of `types`, or why there is none (an error the lambda
/// raised at these sizes, a graph break).
std::optional<Trace> record(TraceRef fn, const std::vector<graph::TensorType>& types, Device device,
                            const std::vector<int>& donated, std::string& whyNot, bool* lambdaFailed = nullptr,
                            bool* graphBreak = nullptr) {
  auto tracer = std::make_shared<Tracer>(types.size());
  ThrowOnBreak onBreak;
  tracer->setBreakHandler(&onBreak);
  tracer->setDonated(donated);
  std::vector<Tensor> args;
  for (size_t i = 0; i < types.size(); ++i) args.push_back(tracer->addArgument(tracer, i, types[i], device));
  if (types.empty()) tracer->bind(tracer, device);
  try {
    Tracer::Scope scope(tracer.get());
    tracer->setOutputs(fn(args));
  } catch (const ProbeBreak& b) {
    tracer->finish();
    if (graphBreak) *graphBreak = true;
    whyNot = "the lambda has a graph break (" + b.event.what + " at " + b.event.loc.str() +
             "), so its segments would have to run at every size";
    return std::nullopt;
  } catch (const Error& e) {
    tracer->finish();
    if (lambdaFailed) *lambdaFailed = true;
    whyNot = std::string(e.what()) +
             " (the lambda fails at these sizes: it needs a size to stay as it was, or two dims to be equal, "
             "which one tg::Dim for both says)";
    return std::nullopt;
  } catch (const std::exception& e) {  // the user's own exception at these sizes
    tracer->finish();
    whyNot = std::string("the lambda threw: ") + e.what();
    return std::nullopt;
  }
  tracer->finish();
  return tracer->trace();
}

std::string sizesText(const std::vector<std::string>& names, const std::vector<int64_t>& values,
                      const std::vector<bool>& fixed) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (fixed[i]) continue;
    if (!out.empty()) out += ", ";
    out += names[i] + " = " + std::to_string(values[i]);
  }
  return out;
}

std::string nodeText(const Trace& trace, int node) {
  const TraceNode& n = trace.nodes[node];
  std::string out = "%" + std::to_string(node) + " " + std::string(graph::opName(n.kind));
  if (n.kind == graph::OpKind::Input)
    out = "%" + std::to_string(node) + " (input " + std::to_string(n.inputIndex) + ")";
  if (n.loc.known()) out += " at " + n.loc.str();
  return out;
}

/// Candidate sizes of a symbol other than the call's: the probe (one away), and two checks
/// (the largest, and an odd one near the middle), all distinct and within [lo, hi].
struct Probes {
  int64_t step = 0, top = 0, middle = 0;
};

Probes probesFor(int64_t v, int64_t lo, int64_t hi) {
  Probes p;
  p.step = v + 1 <= hi ? v + 1 : v - 1;
  auto taken = [&](int64_t x) { return x == v || x == p.step || x == p.top; };
  p.top = hi;
  while ((p.top == v || p.top == p.step) && p.top > lo) --p.top;
  p.middle = (lo + (hi - lo) / 2) | 1;
  if (p.middle > hi) p.middle = hi;
  while (taken(p.middle) && p.middle > lo) --p.middle;
  while (taken(p.middle) && p.middle < hi) ++p.middle;
  return p;
}

/// The first slot whose fitted value at `sizes` differs from `seen`, or -1.
int firstMismatch(const std::vector<SizeExpr>& fitted, const std::vector<int64_t>& seen,
                  const std::vector<int64_t>& sizes) {
  for (size_t k = 0; k < fitted.size(); ++k) {
    std::optional<int64_t> v = fitted[k].evaluate(sizes);
    if (!v || *v != seen[k]) return static_cast<int>(k);
  }
  return -1;
}

}  // namespace

std::string SymbolicTrace::str(size_t maxNodes) const {
  std::string out;
  auto typeText = [&](int node) {
    const TraceNode& n = trace.nodes[node];
    std::string t = std::string(dtype_name(n.type.dtype)) + "[";
    for (size_t i = 0; i < nodes[node].dims.size(); ++i) t += (i ? ", " : "") + nodes[node].dims[i].str(names);
    return t + "]";
  };
  for (size_t i = 0; i < trace.outputs.size(); ++i)
    out += "result " + std::to_string(i) + ": " + typeText(trace.outputs[i]) + "\n";
  for (size_t k = 0; k < sameAs.size(); ++k)
    if (sameAs[k] >= 0)
      out += names[k] + " = " + names[static_cast<size_t>(sameAs[k])] +
             ": the lambda needs them equal (checked at each call)\n";
  size_t shown = 0, more = 0;
  for (size_t n = 0; n < nodes.size(); ++n) {
    const SymbolicNode& s = nodes[n];
    bool symbolic = false;
    for (const auto* v : {&s.dims, &s.shape, &s.starts, &s.limits, &s.steps})
      for (const SizeExpr& e : *v) symbolic = symbolic || !e.isConstant();
    symbolic = symbolic || (s.value && !s.value->isConstant());
    if (!symbolic) continue;
    if (shown == maxNodes) {
      ++more;
      continue;
    }
    ++shown;
    out += nodeText(trace, static_cast<int>(n)) + ": " + typeText(static_cast<int>(n));
    auto list = [&](const char* what, const std::vector<SizeExpr>& v) {
      bool any = false;
      for (const SizeExpr& e : v) any = any || !e.isConstant();
      if (!any) return;
      out += std::string(", ") + what + " [";
      for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i].str(names);
      out += "]";
    };
    list("shape", s.shape);
    list("starts", s.starts);
    list("limits", s.limits);
    list("steps", s.steps);
    if (s.value && !s.value->isConstant()) out += ", value " + s.value->str(names);
    out += "\n";
  }
  if (more) out += "... " + std::to_string(more) + " more op(s) with symbolic sizes\n";
  return out;
}

SymbolicInference inferSymbolicTrace(TraceRef fn, const std::vector<graph::TensorType>& types, Device device,
                                     const DynamicDims& dims, const std::vector<int64_t>& values,
                                     const std::vector<int>& donated) {
  SymbolicInference result;
  const std::vector<DynamicDims::Symbol>& symbols = dims.symbols();
  const std::vector<std::string> names = dims.names();
  const size_t count = symbols.size();
  std::vector<bool> fixed(count, false);
  std::vector<int> varied;
  // Each symbol's range from 2; sameAs[s]: the symbol whose size s takes when the lambda needs
  // the two equal (-1: its own), and whose range is then both ranges' overlap.
  std::vector<int64_t> lo(count), hi(count);
  std::vector<int> sameAs(count, -1);
  for (size_t s = 0; s < count; ++s) {
    lo[s] = std::max<int64_t>(symbols[s].min, 2), hi[s] = symbols[s].max;
    fixed[s] = values[s] < 2 || hi[s] - lo[s] + 1 < 4;
    if (!fixed[s]) varied.push_back(static_cast<int>(s));
  }
  // At most kMaxDims varied dims are probed, and kMaxSymbols once equal ones are one.
  constexpr size_t kMaxSymbols = 4, kMaxDims = 8;
  auto tooMany = [&](size_t most) {
    if (varied.size() <= most) return false;
    result.whyNot = "more than " + std::to_string(most) + " dynamic dims vary in one call (" +
                    sizesText(names, values, fixed) + ")";
    return true;
  };
  if (tooMany(kMaxDims)) return result;
  // `v` with symbol `s` and every symbol that takes its size at `x`.
  auto setGroup = [&](std::vector<int64_t>& v, int s, int64_t x) {
    for (size_t k = 0; k < count; ++k)
      if (static_cast<int>(k) == s || sameAs[k] == s) v[k] = x;
  };

  // The traces, by the subset of varied symbols at their probe sizes.
  std::vector<int64_t> probe = values;
  auto sizesOf = [&](unsigned subset) {
    std::vector<int64_t> v = values;
    for (size_t b = 0; b < varied.size(); ++b)
      if (subset & (1u << b)) setGroup(v, varied[b], probe[varied[b]]);
    return v;
  };
  std::optional<Sample> base;
  const Sample* first = nullptr;  // the call's sizes' sample, which the others must match
  auto sampleAt = [&](const std::vector<int64_t>& sizes, std::optional<Sample>& into, bool* lambdaFailed = nullptr) -> bool {
    std::string why;
    std::optional<Trace> t = record(fn, dims.withSizes(types, sizes), device, donated, why, lambdaFailed, &result.graphBreak);
    ++result.traces;
    if (!t) {
      result.whyNot = "traced with " + sizesText(names, sizes, fixed) + ": " + why;
      return false;
    }
    into = takeApart(std::move(*t));
    if (!first || into->structure == first->structure) return true;
    // Name the first node that differs.
    const Trace &a = first->trace, &b = into->trace;
    size_t n = 0;
    while (n < a.nodes.size() && n < b.nodes.size() && first->nodeKeys[n] == into->nodeKeys[n]) ++n;
    const std::string where = n < a.nodes.size() ? nodeText(a, static_cast<int>(n))
                              : n < b.nodes.size() ? nodeText(b, static_cast<int>(n))
                                                   : "its results";
    result.whyNot = "the graph is not the same at " + sizesText(names, sizes, fixed) + " as at " +
                    sizesText(names, values, fixed) + " (from " + where +
                    "): its ops, dtypes, ranks or constants depend on the sizes";
    return false;
  };
  if (!sampleAt(values, base)) return result;
  first = &*base;
  const size_t slots = base->slots.size();

  // Each varied symbol moved alone. Where the lambda fails (an error of tg's ops: shapes that
  // must agree), it may need that dim equal to another of the same size in the call: the two
  // are moved together, and if that traces they are one size from then on (the jit checks it
  // at every call: sizes that differ are not this graph's).
  std::vector<std::optional<Sample>> alone(count);
  for (size_t i = 0; i < varied.size(); ++i) {
    const int s = varied[i];
    std::vector<int64_t> at = values;
    setGroup(at, s, probesFor(values[s], lo[s], hi[s]).step);
    bool lambdaFailed = false;
    if (sampleAt(at, alone[s], &lambdaFailed)) continue;
    if (!lambdaFailed) return result;
    const std::string firstWhy = result.whyNot;
    // Partners: each later varied symbol of the same size alone, then all of them at once.
    std::vector<std::vector<size_t>> tries;
    std::vector<size_t> all;
    for (size_t j = i + 1; j < varied.size(); ++j)
      if (values[varied[j]] == values[s]) tries.push_back({j}), all.push_back(j);
    if (all.size() > 1) tries.push_back(all);
    bool merged = false;
    for (const std::vector<size_t>& partners : tries) {
      int64_t newLo = lo[s], newHi = hi[s];
      for (size_t j : partners) newLo = std::max(newLo, lo[varied[j]]), newHi = std::min(newHi, hi[varied[j]]);
      if (newHi - newLo + 1 < 4) continue;
      const int64_t step = probesFor(values[s], newLo, newHi).step;
      std::vector<int64_t> together = values;
      setGroup(together, s, step);
      for (size_t j : partners) setGroup(together, varied[j], step);
      if (!sampleAt(together, alone[s])) continue;
      lo[s] = newLo, hi[s] = newHi;
      for (size_t j : partners) {
        const int t = varied[j];
        for (size_t k = 0; k < count; ++k)
          if (static_cast<int>(k) == t || sameAs[k] == t) sameAs[k] = s;
      }
      for (auto j = partners.rbegin(); j != partners.rend(); ++j) varied.erase(varied.begin() + static_cast<std::ptrdiff_t>(*j));
      merged = true;
      break;
    }
    if (!merged) {
      result.whyNot = firstWhy;
      return result;
    }
  }
  if (tooMany(kMaxSymbols)) return result;
  // Candidate sizes of each varied symbol (and those of its size), in its range.
  std::vector<int64_t> top = values, middle = values;
  for (int s : varied) {
    const Probes p = probesFor(values[s], lo[s], hi[s]);
    probe[s] = p.step;
    setGroup(top, s, p.top);
    setGroup(middle, s, p.middle);
  }
  std::vector<std::optional<Sample>> grid(size_t(1) << varied.size());
  grid[0] = std::move(base);
  first = &*grid[0];
  for (size_t b = 0; b < varied.size(); ++b) grid[size_t(1) << b] = std::move(alone[varied[b]]);

  auto build = [&](const std::vector<SizeExpr>& fitted) {
    // A fixed symbol holds at its size only; the others from 2 (a size of 1 broadcasts where
    // larger ones do not: a variant of its own).
    std::vector<int64_t> min, max;
    for (size_t s = 0; s < count; ++s) {
      const size_t r = sameAs[s] >= 0 ? static_cast<size_t>(sameAs[s]) : s;
      min.push_back(fixed[s] ? values[s] : lo[r]);
      max.push_back(fixed[s] ? values[s] : hi[r]);
    }
    result.trace = symbolicTraceOf(grid[0]->trace, fitted, names, min, max, fixed, sameAs);
  };
  if (varied.empty()) {  // nothing varies: every size is the call's
    build(std::vector<SizeExpr>(grid[0]->slots.begin(), grid[0]->slots.end()));
    return result;
  }

  std::vector<unsigned> subsets = {0};
  for (size_t b = 0; b < varied.size(); ++b) subsets.push_back(1u << b);
  std::optional<Sample> atTop, atMiddle;
  if (!sampleAt(top, atTop) || !sampleAt(middle, atMiddle)) return result;

  auto at = [&](unsigned subset) -> const std::vector<int64_t>& { return grid[subset]->slots; };
  std::vector<SizeExpr> fitted = fitMultilinear(varied, values, probe, subsets, at, slots);
  int bad = firstMismatch(fitted, atTop->slots, top);
  if (bad < 0) bad = firstMismatch(fitted, atMiddle->slots, middle);
  if (bad >= 0 && varied.size() > 1) {  // products of symbols: sample the whole grid
    for (unsigned subset = 1; subset < grid.size(); ++subset) {
      if (grid[subset]) continue;
      if (!sampleAt(sizesOf(subset), grid[subset])) return result;
      subsets.push_back(subset);
    }
    fitted = fitMultilinear(varied, values, probe, subsets, at, slots);
    bad = firstMismatch(fitted, atTop->slots, top);
    if (bad < 0) bad = firstMismatch(fitted, atMiddle->slots, middle);
  }
  if (bad >= 0) {
    const Sample& call = *grid[0];
    const SlotPlace& p = call.places[bad];
    const bool atTopFailed = firstMismatch(fitted, atTop->slots, top) == bad;
    const std::vector<int64_t>& sizes = atTopFailed ? top : middle;
    const int64_t seen = (atTopFailed ? atTop->slots : atMiddle->slots)[bad];
    result.whyNot = "the " + std::string(p.field) + " " + std::to_string(p.index) + " of " + nodeText(call.trace, p.node) +
                    " is " + std::to_string(call.slots[bad]) + " at " + sizesText(names, values, fixed) + " and " +
                    std::to_string(seen) + " at " + sizesText(names, sizes, fixed) +
                    ", which no polynomial of degree one in each dim gives (" + fitted[bad].str(names) +
                    " fits the nearby sizes): it depends on a size through a division, a square or a branch";
    return result;
  }

  build(fitted);
  return result;
}

TraceSizes traceSizes(const Trace& trace) {
  Sample sample = takeApart(trace);
  return {std::move(sample.structure), std::move(sample.slots)};
}

SymbolicTrace symbolicTraceOf(Trace trace, std::vector<SizeExpr> fitted, std::vector<std::string> names,
                              std::vector<int64_t> min, std::vector<int64_t> max, std::vector<bool> fixed,
                              std::vector<int> sameAs) {
  Sample sample = takeApart(std::move(trace));
  SymbolicTrace st{std::move(sample.trace), {}, std::move(names), std::move(min), std::move(max), std::move(fixed),
                   std::move(sameAs), std::move(sample.structure), std::move(fitted)};
  st.nodes.resize(st.trace.nodes.size());
  for (size_t k = 0; k < sample.places.size() && k < st.slots.size(); ++k) {
    const SlotPlace& p = sample.places[k];
    SymbolicNode& node = st.nodes[p.node];
    const std::string_view field = p.field;
    if (field == "value") {
      node.value = st.slots[k];
      continue;
    }
    std::vector<SizeExpr>& v = field == "extent"  ? node.dims
                               : field == "shape" ? node.shape
                               : field == "start" ? node.starts
                               : field == "limit" ? node.limits
                                                  : node.steps;
    v.push_back(st.slots[k]);
  }
  return st;
}

std::string checkSymbolicTrace(const SymbolicTrace& st, TraceRef fn, const std::vector<graph::TensorType>& types,
                               Device device, std::span<const int64_t> values, const std::vector<int>& donated) {
  std::string why;
  std::optional<Trace> t = record(fn, types, device, donated, why);
  const std::vector<int64_t> at(values.begin(), values.end());
  const std::string sizes = sizesText(st.names, at, st.fixed);
  if (!t) return "traced with " + sizes + ": " + why;
  const Sample sample = takeApart(std::move(*t));
  if (sample.structure != st.structure || sample.slots.size() != st.slots.size()) {
    size_t n = 0;
    const Sample base = takeApart(st.trace);
    while (n < base.nodeKeys.size() && n < sample.nodeKeys.size() && base.nodeKeys[n] == sample.nodeKeys[n]) ++n;
    const std::string where = n < sample.trace.nodes.size() ? nodeText(sample.trace, static_cast<int>(n)) : "its results";
    return "the graph at " + sizes + " is not the one compiled for the ranges (from " + where +
           "): its ops, dtypes, ranks or constants depend on the sizes";
  }
  for (size_t k = 0; k < st.slots.size(); ++k) {
    const std::optional<int64_t> want = st.slots[k].evaluate(values);
    if (want && *want == sample.slots[k]) continue;
    const SlotPlace& p = sample.places[k];
    return "the " + std::string(p.field) + " " + std::to_string(p.index) + " of " + nodeText(sample.trace, p.node) +
           " is " + std::to_string(sample.slots[k]) + " at " + sizes + ", not " + st.slots[k].str(st.names) +
           " as compiled for the ranges: it depends on a size through a division, a square or a branch";
  }
  return {};
}

}  // namespace tg::detail
