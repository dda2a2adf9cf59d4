//===- Tracer.cpp - Recording ops into a Trace ----------------------------===//
#include "tg/Frontend/Tracer.h"

#include <atomic>
#include <cstdio>

namespace tg::detail {

static thread_local Tracer* currentTracer = nullptr;

Tracer::Tracer(size_t numArgs) {
  static std::atomic<uint64_t> next{1};
  id_ = next.fetch_add(1, std::memory_order_relaxed);
  trace_.numArgs = numArgs;
}

Tracer::~Tracer() {
  for (auto& [variable, link] : links_) releaseBinding(link, nullptr);
}

Binding* Tracer::linkTo(Binding* variable) {
  Binding*& link = links_[variable];
  if (link)
    releaseBinding(variable, nullptr);  // the link already holds one
  else
    link = new Binding(variable, id_);  // takes over the caller's reference; ours
  link->refs.fetch_add(1, std::memory_order_relaxed);  // the caller's
  return link;
}

Tracer* Tracer::current() { return currentTracer; }

Tracer* Tracer::exchangeCurrent(Tracer* tracer) {
  Tracer* previous = currentTracer;
  currentTracer = tracer;
  return previous;
}

std::vector<Tensor> Tracer::liveSymbolic() const {
  std::vector<Tensor> live;
  for (const std::weak_ptr<TensorImpl>& w : created_)
    if (std::shared_ptr<TensorImpl> impl = w.lock(); impl && impl->symbolic())
      live.push_back(Tensor(std::move(impl)));
  return live;
}

Tracer::Scope::Scope(Tracer* tracer) : previous_(currentTracer) { currentTracer = tracer; }
Tracer::Scope::~Scope() { currentTracer = previous_; }

Tensor Tracer::symbolic(int node) {
  auto impl = std::make_shared<TensorImpl>();
  impl->type = trace_.nodes[node].type;
  impl->device = device_;
  impl->tracer = self_.lock();
  impl->value = node;
  created_.push_back(impl);
  return Tensor(std::move(impl));
}

Tensor Tracer::addArgument(const std::shared_ptr<Tracer>& self, size_t index,
                           const graph::TensorType& type, Device device) {
  self_ = self;
  device_ = device;
  TraceNode node;
  node.kind = graph::OpKind::Input;
  node.type = type;
  node.inputIndex = static_cast<int>(index);
  trace_.nodes.push_back(std::move(node));
  return symbolic(static_cast<int>(trace_.nodes.size()) - 1);
}

int Tracer::valueOf(const Tensor& t, const SourceLoc& loc) {
  const TensorImpl& impl = t.impl();
  if (impl.symbolic()) return impl.value;
  BindingRef variable(Binding::variableOf(t));
  auto it = captured_.find(variable.get());
  if (it != captured_.end()) return it->second;
  TraceNode node;
  node.kind = graph::OpKind::Input;
  node.type = impl.type;
  node.inputIndex = static_cast<int>(trace_.numArgs + trace_.captures.size());
  CaptureSource source;
  source.version = variable->version;
  source.direct = variable->alive && variable->current().impl_ptr().get() == &impl;
  source.loc = loc;
  source.variable = std::move(variable);
  trace_.captures.push_back(t);
  trace_.nodes.push_back(std::move(node));
  const int id = static_cast<int>(trace_.nodes.size()) - 1;
  captured_[source.variable.get()] = id;
  trace_.captureSources.push_back(std::move(source));
  return id;
}

Tensor Tracer::record(graph::OpKind kind, const graph::OpAttrs& attrs,
                      const std::vector<Tensor>& operands, const graph::TensorType& type,
                      const SourceLoc& loc) {
  TraceNode node;
  node.kind = kind;
  node.attrs = attrs;
  for (const Tensor& t : operands) node.operands.push_back(valueOf(t, loc));
  node.type = type;
  node.loc = loc;
  trace_.nodes.push_back(std::move(node));
  return symbolic(static_cast<int>(trace_.nodes.size()) - 1);
}

Tensor Tracer::recordConstant(ref::HostTensor value, const graph::TensorType& type, bool splat,
                              const SourceLoc& loc) {
  TraceNode node;
  node.kind = graph::OpKind::Constant;
  node.type = type;
  node.loc = loc;
  node.constant = std::move(value);
  node.splat = splat;
  trace_.nodes.push_back(std::move(node));
  return symbolic(static_cast<int>(trace_.nodes.size()) - 1);
}

void appendNodeKey(std::string& s, const TraceNode& n) {
  s += std::to_string(static_cast<int>(n.kind)) + ":" + n.type.str();
  for (int o : n.operands) s += "," + std::to_string(o);
  graph::appendAttrsKey(s, n.attrs);
  s += "@" + std::to_string(n.inputIndex);
  if (n.kind == graph::OpKind::Constant) {
    s += n.splat ? "splat" : "dense";
    s.append(reinterpret_cast<const char*>(n.constant.data()), n.constant.nbytes());
  }
  s += ";";
}

std::string structuralKey(const Trace& trace) {
  std::string s = "args" + std::to_string(trace.numArgs) + ";";
  for (const TraceNode& n : trace.nodes) appendNodeKey(s, n);
  for (int o : trace.outputs) s += "out" + std::to_string(o);
  for (int d : trace.donated) s += "donated" + std::to_string(d);
  return s;
}

void Tracer::setOutputs(const std::vector<Tensor>& outputs) {
  trace_.outputs.clear();
  for (const Tensor& t : outputs) trace_.outputs.push_back(valueOf(t, {}));
  // Count who still holds each link: this tracer, the trace's captures, the results; anyone
  // else is a copy that outlived the lambda's run.
  for (CaptureSource& source : trace_.captureSources) {
    auto it = links_.find(source.variable.get());
    if (it == links_.end()) continue;  // read directly, with no copy in between
    const Binding* link = it->second;
    int expected = 1;
    for (const Tensor& t : trace_.captures) expected += Binding::get(t) == link;
    for (const Tensor& t : outputs) expected += Binding::get(t) == link;
    if (link->refs.load(std::memory_order_relaxed) > expected) source.direct = false;
  }
}

}  // namespace tg::detail
