//===- Jit.cpp - Signature cache, recompiles and replay of jit functions --===//
//
// The per-call path: compute the call's signature (dtype, shape and device of each argument)
// and find its entry. A break-free entry replays its compiled graph without running the
// lambda. Otherwise the lambda runs with tracing (Segments.cpp): graphs are found in the
// function's cache by structural key, so only segments never seen before are compiled.
// MLIR-free: compilation is behind compileTrace().
//
//===----------------------------------------------------------------------===//
#include "tg/Frontend/Dispatch.h"
#include "tg/Frontend/JitState.h"

#include <cctype>
#include <cstdio>

namespace tg::detail {

namespace {

/// "jit_mlp_cpp_42" from ".../mlp.cpp:42": a readable, valid MLIR symbol name.
std::string defaultName(const SourceLoc& loc) {
  std::string file = loc.file;
  if (size_t slash = file.find_last_of('/'); slash != std::string::npos) file = file.substr(slash + 1);
  std::string name = "jit_" + file + "_" + std::to_string(loc.line);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return name;
}

Signature signatureOf(std::span<const Tensor* const> inputs, const SourceLoc& where) {
  Signature sig;
  sig.device = inputs.empty() ? default_device() : Device::CPU;
  sig.types.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = *inputs[i];
    if (!t.defined())
      throw Error("jit: argument " + std::to_string(i) + " is an undefined tensor", where);
    if (t.impl().symbolic())
      throw Error("jit: argument " + std::to_string(i) +
                      " is a traced value of another jit function's trace",
                  where);
    if (i == 0) sig.device = t.device();
    if (t.device() != sig.device)
      throw Error(std::string("jit: arguments are on different devices (") +
                      device_name(sig.device) + " and " + device_name(t.device()) + ")",
                  where);
    sig.types.push_back(t.impl().type);
  }
  return sig;
}

/// Whether `inputs` have exactly `sig`'s dtypes, shapes and device (no allocation: the
/// per-call path).
bool matches(const Signature& sig, std::span<const Tensor* const> inputs) {
  if (sig.types.size() != inputs.size()) return false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]->defined()) return false;
    const TensorImpl& impl = inputs[i]->impl();
    if (impl.symbolic() || impl.device != sig.device || impl.type.dtype != sig.types[i].dtype ||
        impl.type.shape != sig.types[i].shape)
      return false;
  }
  return !inputs.empty() || sig.device == default_device();
}

/// Why `now` needs a compilation that `before` did not: the first field that differs.
std::string recompileReason(const Signature& before, const Signature& now) {
  if (before.types.size() != now.types.size())
    return "number of inputs " + std::to_string(before.types.size()) + " -> " +
           std::to_string(now.types.size());
  if (before.device != now.device)
    return std::string("device ") + device_name(before.device) + " -> " + device_name(now.device);
  for (size_t i = 0; i < now.types.size(); ++i) {
    const graph::TensorType &a = before.types[i], &b = now.types[i];
    if (a.shape != b.shape)
      return "input " + std::to_string(i) + " shape " + format_shape(a.shape) + " -> " +
             format_shape(b.shape);
    if (a.dtype != b.dtype)
      return "input " + std::to_string(i) + " dtype " + dtype_name(a.dtype) + " -> " +
             dtype_name(b.dtype);
  }
  return "unknown";
}

}  // namespace

CompiledGraph& JitState::graphFor(const Trace& trace, Device device) {
  std::string key = std::string(device_name(device)) + "|" + structuralKey(trace);
  std::unique_ptr<CompiledGraph>& slot = graphs[key];
  if (slot) {
    ++report.cacheHits;
    return *slot;
  }
  ++report.cacheMisses;
  auto graph = std::make_unique<CompiledGraph>();
  int index = static_cast<int>(graphs.size()) - 1;
  std::string graphName = index == 0 ? name : name + "_g" + std::to_string(index);
  try {
    graph->program = compileTrace(trace, options, device, graphName);
  } catch (...) {
    graphs.erase(key);
    --report.cacheMisses;
    throw;
  }
  graph->info.index = index;
  for (const TraceNode& n : trace.nodes)
    if (n.kind != graph::OpKind::Input) ++graph->info.ops;
  graph->info.kernels = graph->program->kernels();
  slot = std::move(graph);
  return *slot;
}

void JitState::note(std::vector<JitReport::Event>& events, const JitReport::Event& event) {
  for (JitReport::Event& e : events)
    if (e.what == event.what && e.loc.file == event.loc.file && e.loc.line == event.loc.line) {
      ++e.count;
      return;
    }
  events.push_back(event);
  events.back().count = 1;
}

struct JitCore::State : JitState {};

JitCore::JitCore(JitOptions options, Loc definedAt) : state_(std::make_unique<State>()) {
  state_->definedAt = SourceLoc::from(definedAt);
  state_->name = options.name.empty() ? defaultName(state_->definedAt) : options.name;
  state_->options = std::move(options);
  state_->report.name = state_->name;
  state_->report.definedAt = state_->definedAt;
  state_->report.recompileLimit = state_->options.recompile_limit;
}

JitCore::~JitCore() = default;

bool JitCore::tracing() { return Tracer::current() != nullptr; }

std::string JitCore::ir() const {
  const Entry* last = state_->last;
  if (!last) return "";
  if (last->graph) return last->graph->program->ir();
  std::string all;  // a function with breaks: every segment's graph
  for (const auto& [key, graph] : state_->graphs) all += graph->program->ir();
  return all;
}

JitReport JitCore::report() const {
  JitReport r = state_->report;
  r.graphs.clear();
  for (const auto& [key, graph] : state_->graphs) {
    JitReport::Graph& info = r.graphs.emplace_back(graph->info);
    graph->program->describe(info);
    bool replayed = false;  // the whole of a break-free function, replayed without the lambda
    for (const auto& e : state_->entries) replayed = replayed || e->graph == graph.get();
    if (info.kernels == 0 || info.cudaGraph || !info.noCudaGraphReason.empty()) continue;
    if (!replayed)
      info.noCudaGraphReason = "a segment between graph breaks (the lambda runs on every call)";
    else if (info.cudaGraphLaunches == 0)
      info.noCudaGraphReason = "the CUDA graph is built at the second call";
  }
  std::sort(r.graphs.begin(), r.graphs.end(),
            [](const JitReport::Graph& a, const JitReport::Graph& b) { return a.index < b.index; });
  return r;
}

std::string JitCore::traceIr(const std::vector<TensorSpec>& specs, TraceRef fn) const {
  auto tracer = std::make_shared<Tracer>(specs.size());
  std::vector<Tensor> symbolic;
  for (size_t i = 0; i < specs.size(); ++i)
    symbolic.push_back(
        tracer->addArgument(tracer, i, {specs[i].dtype, specs[i].shape}, Device::CPU));
  if (specs.empty()) tracer->bind(tracer, Device::CPU);
  try {
    Tracer::Scope scope(tracer.get());
    tracer->setOutputs(fn(symbolic));
  } catch (...) {
    tracer->finish();
    throw;
  }
  tracer->finish();
  return importedIr(tracer->trace(), state_->name);
}

void JitCore::call(std::span<const Tensor* const> args, std::span<Tensor> results,
                   TraceRef fn, const Loc& site) {
  try {
    dispatch(args, results, fn);
  } catch (const OutOfMemoryError& e) {
    // The runtime knows the bytes; the user needs the function and the line of the call.
    throw OutOfMemoryError("jit '" + state_->name + "': " + e.message(), SourceLoc::from(site));
  }
}

void JitCore::dispatch(std::span<const Tensor* const> args, std::span<Tensor> results,
                     TraceRef fn) {
  State& s = *state_;
  ++s.report.calls;
  // The hot path: the last signature again, compared in place.
  Entry* entry = s.last && matches(s.last->signature, args) ? s.last : nullptr;
  Signature computed;
  if (!entry) {
    computed = signatureOf(args, s.definedAt);
    for (const auto& e : s.entries)
      if (e->signature == computed) entry = e.get();
  }

  if (entry && entry->graph) {  // break-free: replay without running the lambda
    ++s.report.replays;
    ++entry->graph->info.runs;
    s.last = entry;
    entry->graph->program->execute({args, entry->captures}, results, /*replay=*/true);
    return;
  }

  if (!entry) {
    if (s.last) s.report.recompiles.push_back(recompileReason(s.last->signature, computed));
    auto created = std::make_unique<Entry>();
    created->signature = computed;
    entry = created.get();
    s.entries.push_back(std::move(created));
    if (static_cast<int>(s.entries.size()) > s.options.recompile_limit &&
        !s.report.recompileLimitExceeded) {
      s.report.recompileLimitExceeded = true;
      std::fprintf(stderr,
                   "tg: warning: jit function '%s' (%s) has compiled %zu signatures, more than "
                   "its recompile_limit of %d; last: %s. Pass tensors of fixed shapes, or raise "
                   "JitOptions::recompile_limit.\n",
                   s.name.c_str(), s.definedAt.str().c_str(), s.entries.size(),
                   s.options.recompile_limit, s.report.recompiles.back().c_str());
    }
  }
  s.last = entry;
  bool broke = false;
  CompiledGraph* only = nullptr;
  std::vector<Tensor> captures;
  std::vector<Tensor> inputs;
  inputs.reserve(args.size());
  for (const Tensor* t : args) inputs.push_back(*t);
  std::vector<Tensor> outputs =
      runSegmented(s, inputs, entry->signature, fn, broke, &only, &captures);
  if (outputs.size() != results.size())
    throw Error("internal error: jit '" + s.name + "' produced " +
                std::to_string(outputs.size()) + " results for " +
                std::to_string(results.size()) + " expected");
  for (size_t i = 0; i < outputs.size(); ++i) results[i] = std::move(outputs[i]);
  if (!broke && only) {
    entry->graph = only;
    entry->captures = std::move(captures);
  }
}

}  // namespace tg::detail
