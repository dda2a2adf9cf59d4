//===- Segments.cpp - Tracing with graph breaks -----------------------------===//
//
// When the lambda reads a traced tensor (item(), to_vector(), operator bool), the trace cannot
// go on: the value is not known yet. The segment recorded so far is compiled (or found in the
// function's graph cache by structural key) and run; every symbolic tensor the lambda still
// holds is computed and becomes concrete in place; the read returns the real value; tracing
// continues in a new segment that captures those tensors as inputs. Under fullgraph the first
// break throws tg::GraphBreakError instead.
//
// With dynamic dims, each segment's sizes are fitted from the calls that traced it
// (SegmentFit.h): once a fit holds, the segment compiles once for the ranges, and each later
// call whose trace the fit gives at its sizes runs that graph; other calls compile (or find)
// the segment for their own sizes.
//
//===----------------------------------------------------------------------===//
#include "tg/Frontend/JitState.h"
#include "tg/Frontend/SegmentFit.h"

#include <algorithm>

namespace tg::detail {

namespace {

/// Turns a symbolic tensor into the concrete `value`, in place: every Tensor handle the lambda
/// holds sees the data from now on.
void become(TensorImpl& impl, const Tensor& value) {
  impl.type = value.impl().type;
  impl.device = value.impl().device;
  impl.host = value.impl().host;
  impl.buffer = value.impl().buffer;
  impl.tracer.reset();
  impl.value = -1;
}

class SegmentedRun : public BreakHandler {
 public:
  SegmentedRun(JitState& state, const std::vector<Tensor>& args, const Signature& signature,
               std::span<const int64_t> symbolValues)
      : state_(state), args_(args), device_(signature.device), values_(symbolValues.begin(), symbolValues.end()) {
    tracer_ = std::make_shared<Tracer>(args.size());
    for (size_t i = 0; i < args.size(); ++i)
      symbolicArgs_.push_back(tracer_->addArgument(tracer_, i, signature.types[i], device_));
    if (args.empty()) tracer_->bind(tracer_, device_);
    tracer_->setDonated(state.donated);
    tracer_->setBreakHandler(this);
    previous_ = Tracer::exchangeCurrent(tracer_.get());
  }

  ~SegmentedRun() override {
    if (tracer_) tracer_->finish();
    Tracer::exchangeCurrent(previous_);
  }

  SegmentedResult run(TraceRef fn) {
    SegmentedResult result;
    std::vector<Tensor> outputs = fn(symbolicArgs_);
    for (size_t i = 0; i < outputs.size(); ++i)
      if (!outputs[i].defined())
        throw Error("jit: result " + std::to_string(i) + " of the lambda is undefined",
                    state_.definedAt);
    // After a break, a last segment that records nothing (the results are already concrete)
    // need not run. One that records anything (a tg.check, say) must.
    bool recordsOps = false;
    for (const TraceNode& node : tracer_->trace().nodes)
      recordsOps = recordsOps || node.kind != graph::OpKind::Input;
    result.broke = segment_ > 0;
    if (!recordsOps && segment_ > 0) {
      result.outputs = std::move(outputs);
      return result;
    }
    CompiledGraph* graph = nullptr;
    result.outputs = finishSegment(outputs, &graph);
    if (segment_ == 0) {  // no break: the caller can replay this graph from now on
      result.only = graph;
      result.captures = tracer_->trace().captures;
      result.sources = tracer_->trace().captureSources;
    }
    return result;
  }

  void onBreak(const Tensor& t, JitReport::Event event) override {
    event.segment = segment_;
    JitState::note(state_.report.breaks, event);
    JitState::note(state_.report.syncs, event);  // a break waits for the device, too
    if (state_.options.fullgraph)
      throw GraphBreakError("graph break in '" + state_.name + "': " + event.what + " " +
                                event.reason + " (hint: " + event.hint + ")",
                            event.loc);
    // Compute everything the lambda still holds (it may use any of it later).
    std::vector<Tensor> live = tracer_->liveSymbolic();
    bool holdsT = false;
    for (const Tensor& l : live) holdsT = holdsT || l.impl_ptr() == t.impl_ptr();
    if (!holdsT) live.push_back(t);
    std::vector<Tensor> values = finishSegment(live, nullptr);
    for (size_t i = 0; i < live.size(); ++i) become(live[i].impl(), values[i]);
    // A new segment: no arguments; the concrete tensors become its captured inputs.
    ++segment_;
    tracer_ = std::make_shared<Tracer>(0);
    tracer_->bind(tracer_, device_);
    tracer_->setBreakHandler(this);
    Tracer::exchangeCurrent(tracer_.get());
  }

 private:
  /// Compiles (or finds) the current segment with `outputs` as its results and runs it.
  std::vector<Tensor> finishSegment(const std::vector<Tensor>& outputs, CompiledGraph** graphOut) {
    tracer_->setOutputs(outputs);
    tracer_->finish();
    const Trace& trace = tracer_->trace();
    std::vector<Tensor> inputs;
    if (segment_ == 0) inputs = args_;
    inputs.insert(inputs.end(), trace.captures.begin(), trace.captures.end());
    if (CompiledGraph* fitted = values_.empty() ? nullptr : fittedSegment(trace)) {
      ++fitted->info.runs;
      if (graphOut) *graphOut = fitted;
      std::vector<const Tensor*> pointers;
      pointers.reserve(inputs.size());
      for (const Tensor& t : inputs) pointers.push_back(&t);
      std::vector<Tensor> results(fitted->program->numResults());
      fitted->program->execute({pointers, {}}, results, /*replay=*/false, values_);
      return results;
    }
    CompiledGraph& graph = state_.graphs.get(trace, device_);
    ++graph.info.runs;
    if (graphOut) *graphOut = &graph;
    return graph.program->run(inputs);
  }

  /// The graph compiled once for the ranges whose fit gives `trace` at this call's sizes:
  /// found, or fitted from this segment's samples (this call's added) and compiled; null when
  /// there is none yet.
  CompiledGraph* fittedSegment(const Trace& trace) {
    const TraceSizes sizes = traceSizes(trace);
    // The symbols at a size of 1 are held there (a size of 1 broadcasts where larger ones do
    // not), so they key the segment with its structure.
    std::string held;
    for (int64_t v : values_) held += v < 2 ? std::to_string(v) + "," : std::string("?,");
    ObservedSegment& seg = state_.segments[held + "|" + sizes.structure];
    for (const ObservedSegment::Fit& fit : seg.fits) {
      const SymbolicTrace& st = *fit.trace;
      bool holds = st.slots.size() == sizes.slots.size();
      for (size_t s = 0; holds && s < values_.size(); ++s)
        holds = values_[s] >= st.min[s] && values_[s] <= st.max[s];
      for (size_t k = 0; holds && k < sizes.slots.size(); ++k) {
        const std::optional<int64_t> v = st.slots[k].evaluate(values_);
        holds = v && *v == sizes.slots[k];
      }
      if (holds) return fit.graph;
    }
    if (seg.gaveUp) return nullptr;
    bool seen = false;
    for (const std::vector<int64_t>& v : seg.values) seen = seen || v == values_;
    if (seen) return nullptr;  // these sizes fit nothing compiled: this call compiles for them
    seg.values.push_back(values_);
    seg.slots.push_back(sizes.slots);
    // The symbols the samples vary (from 2); the others are held at their one size. A symbol
    // of the same size as an earlier varied one in every sample takes that one's size
    // (SymbolicTrace::sameAs): the fit cannot tell them apart, and a call where they differ
    // does not get this segment's trace from the fit (its own sizes are checked above).
    std::vector<int> varied, sameAs(values_.size(), -1);
    for (size_t s = 0; s < values_.size(); ++s) {
      bool varies = false;
      for (const std::vector<int64_t>& v : seg.values) varies = varies || v[s] != values_[s];
      if (!varies || values_[s] < 2) continue;
      for (int r : varied) {
        bool equal = true;
        for (const std::vector<int64_t>& v : seg.values) equal = equal && v[s] == v[static_cast<size_t>(r)];
        if (equal) {
          sameAs[s] = r;
          break;
        }
      }
      if (sameAs[s] < 0) varied.push_back(static_cast<int>(s));
    }
    const std::string what = "graph segment " + std::to_string(segment_) + " (" + std::to_string(trace.nodes.size()) +
                             " nodes, after " + std::to_string(seg.values.size()) + " sizes): ";
    std::string whyNot;
    std::optional<std::vector<SizeExpr>> fitted;
    if (varied.empty())
      whyNot = "no dim varied yet";
    else if (varied.size() > 4)
      whyNot = "more than 4 dims vary";
    else
      fitted = fitObservedSizes(seg.values, seg.slots, varied, whyNot);
    if (!fitted) {
      if (seg.values.size() >= ObservedSegment::kSamples) {
        seg.gaveUp = true;
        state_.report.symbolicSizes.push_back(what + "compiled for each size: " + whyNot);
      }
      return nullptr;
    }
    const std::vector<DynamicDims::Symbol>& symbols = state_.dynamic.symbols();
    std::vector<int64_t> min, max;
    std::vector<bool> fixed;
    for (size_t s = 0; s < values_.size(); ++s) {
      const bool isVaried = sameAs[s] >= 0 || std::find(varied.begin(), varied.end(), static_cast<int>(s)) != varied.end();
      fixed.push_back(!isVaried);
      min.push_back(isVaried ? std::max<int64_t>(symbols[s].min, 2) : values_[s]);
      max.push_back(isVaried ? symbols[s].max : values_[s]);
    }
    for (size_t s = 0; s < values_.size(); ++s)  // equal symbols: both over the overlap of their ranges
      if (sameAs[s] >= 0) {
        const size_t r = static_cast<size_t>(sameAs[s]);
        min[r] = min[s] = std::max(min[r], min[s]);
        max[r] = max[s] = std::min(max[r], max[s]);
      }
    SymbolicTrace fit =
        symbolicTraceOf(trace, std::move(*fitted), state_.dynamic.names(), min, max, fixed, std::move(sameAs));
    // Kept for the function's life: not this call's tensors (each run gets its call's).
    for (Tensor& c : fit.trace.captures) c = Tensor();
    fit.trace.captureSources.clear();
    auto st = std::make_shared<const SymbolicTrace>(std::move(fit));
    std::string variant = "segment " + held;
    for (size_t s = 0; s < values_.size(); ++s) variant += fixed[s] ? std::to_string(values_[s]) + "," : std::string("?,");
    try {
      CompiledGraph& graph = state_.graphs.getSymbolic(*st, device_, variant);
      seg.fits.push_back({st, &graph});
      state_.report.symbolicSizes.push_back(what + "compiled once for every size in the ranges (graph " +
                                            std::to_string(graph.info.index) + ")\n" + st->str(/*maxNodes=*/8));
      return &graph;
    } catch (const Error& e) {
      seg.gaveUp = true;
      state_.report.symbolicSizes.push_back(what + "not compiled for the ranges (compiled for each size instead): " +
                                            e.message());
      return nullptr;
    }
  }

  JitState& state_;
  const std::vector<Tensor>& args_;
  Device device_;
  std::shared_ptr<Tracer> tracer_;
  std::vector<Tensor> symbolicArgs_;
  Tracer* previous_ = nullptr;
  int segment_ = 0;
  std::vector<int64_t> values_;
};

}  // namespace

SegmentedResult runSegmented(JitState& state, const std::vector<Tensor>& args,
                             const Signature& signature, TraceRef fn, std::span<const int64_t> symbolValues) {
  SegmentedRun run(state, args, signature, symbolValues);
  return run.run(fn);
}

}  // namespace tg::detail
