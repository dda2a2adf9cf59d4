//===- Segments.cpp - Tracing with graph breaks -----------------------------===//
//
// When the lambda reads a traced tensor (item(), to_vector(), operator bool), the trace cannot
// go on: the value is not known yet. The segment recorded so far is compiled (or found in the
// function's graph cache by structural key) and run; every symbolic tensor the lambda still
// holds is computed and becomes concrete in place; the read returns the real value; tracing
// continues in a new segment that captures those tensors as inputs. Under fullgraph the first
// break throws tg::GraphBreakError instead.
//
//===----------------------------------------------------------------------===//
#include "tg/Frontend/JitState.h"

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
  SegmentedRun(JitState& state, const std::vector<Tensor>& args, const Signature& signature)
      : state_(state), args_(args), device_(signature.device) {
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
    CompiledGraph& graph = state_.graphs.get(trace, device_);
    ++graph.info.runs;
    if (graphOut) *graphOut = &graph;
    std::vector<Tensor> inputs;
    if (segment_ == 0) inputs = args_;
    inputs.insert(inputs.end(), trace.captures.begin(), trace.captures.end());
    return graph.program->run(inputs);
  }

  JitState& state_;
  const std::vector<Tensor>& args_;
  Device device_;
  std::shared_ptr<Tracer> tracer_;
  std::vector<Tensor> symbolicArgs_;
  Tracer* previous_ = nullptr;
  int segment_ = 0;
};

}  // namespace

SegmentedResult runSegmented(JitState& state, const std::vector<Tensor>& args,
                             const Signature& signature, TraceRef fn) {
  SegmentedRun run(state, args, signature);
  return run.run(fn);
}

}  // namespace tg::detail
