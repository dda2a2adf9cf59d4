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
#include "tg/Frontend/SymbolicTrace.h"

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

/// Whether `args` fit `e`, a variant compiled for ranges of sizes: its dtypes, device, ranks
/// and fixed dims, and sizes of its symbols that its ranges hold (written to `values`). No
/// allocation once `values` has grown: the per-call path.
bool coversSizes(const Entry& e, std::span<const Tensor* const> args, const DynamicDims& dims,
                 std::vector<int64_t>& values) {
  const Signature& sig = e.signature;
  if (!e.graph || args.empty() || sig.types.size() != args.size()) return false;
  values.assign(e.fixed.size(), -1);
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i]->defined()) return false;
    const TensorImpl& impl = args[i]->impl();
    const Shape& want = sig.types[i].shape;
    if (impl.symbolic() || impl.device != sig.device || impl.type.dtype != sig.types[i].dtype ||
        impl.type.shape.size() != want.size())
      return false;
    for (size_t d = 0; d < want.size(); ++d) {
      const int symbol = e.symbolOf[i][d];
      const int64_t size = impl.type.shape[d];
      if (symbol < 0) {
        if (size != want[d]) return false;
        continue;
      }
      int64_t& v = values[static_cast<size_t>(symbol)];
      if (v >= 0 && v != size) return false;
      v = size;
    }
  }
  for (size_t k = 0; k < values.size(); ++k) {
    if (k < e.sameAs.size() && e.sameAs[k] >= 0 && values[k] != values[static_cast<size_t>(e.sameAs[k])])
      return false;  // dims the graph takes as one size
    const DynamicDims::Symbol& symbol = dims.symbols()[k];
    const bool inRange = e.fixed[k] >= 0 ? values[k] == e.fixed[k]
                                         : values[k] >= std::max<int64_t>(2, symbol.min) && values[k] <= symbol.max;
    if (!inRange) return false;
  }
  return true;
}

/// The fields in which `now` differs from `before`, in order ("input 0 shape [4] -> [8]").
std::vector<std::string> differences(const Signature& before, const Signature& now) {
  std::vector<std::string> out;
  if (before.types.size() != now.types.size()) {
    out.push_back("number of inputs " + std::to_string(before.types.size()) + " -> " +
                  std::to_string(now.types.size()));
    return out;
  }
  if (before.device != now.device)
    out.push_back(std::string("device ") + device_name(before.device) + " -> " +
                  device_name(now.device));
  for (size_t i = 0; i < now.types.size(); ++i) {
    const graph::TensorType &a = before.types[i], &b = now.types[i];
    if (a.shape != b.shape)
      out.push_back("input " + std::to_string(i) + " shape " + format_shape(a.shape) + " -> " +
                    format_shape(b.shape));
    if (a.dtype != b.dtype)
      out.push_back("input " + std::to_string(i) + " dtype " + dtype_name(a.dtype) + " -> " +
                    dtype_name(b.dtype));
  }
  return out;
}

/// Why `now` needs a compilation: what differs from the nearest signature compiled before (the
/// one with the fewest differing fields; the most recent among equals), e.g. "input 0 dtype
/// f32 -> bf16" after f32[1024] and f32[2048] for bf16[1024].
std::string recompileReason(const std::vector<std::unique_ptr<Entry>>& entries,
                            const Signature& now) {
  std::vector<std::string> nearest;
  for (const auto& e : entries) {
    std::vector<std::string> d = differences(e->signature, now);
    if (!d.empty() && (nearest.empty() || d.size() <= nearest.size())) nearest = std::move(d);
  }
  if (nearest.empty()) return "unknown";
  constexpr size_t kShown = 3;
  std::string reason;
  for (size_t i = 0; i < nearest.size() && i < kShown; ++i) reason += (i ? ", " : "") + nearest[i];
  if (nearest.size() > kShown) reason += " (+" + std::to_string(nearest.size() - kShown) + " more)";
  return reason;
}

/// "f32[4] cuda".
std::string typeText(const Tensor& t) {
  return graph::TensorType{t.dtype(), t.shape()}.str() + " " + device_name(t.device());
}

/// The trace's captures, for the report: where each was read, and whether the lambda holds it
/// by value.
std::vector<JitReport::Capture> describeCaptures(const SegmentedResult& r, const TraceRef& fn) {
  std::vector<JitReport::Capture> out;
  for (size_t i = 0; i < r.captures.size(); ++i) {
    const CaptureSource& s = r.sources[i];
    out.push_back({typeText(r.captures[i]), s.loc,
                   s.variable->alive && fn.insideClosure(s.variable->object)});
  }
  return out;
}

/// Whether every captured variable still holds what the trace read (the per-call check: a few
/// loads per capture).
bool capturesUnchanged(const Entry& e) {
  for (const CaptureGuard& g : e.guards)
    if (!g.variable->alive || g.variable->version != g.version) return false;
  return true;
}

/// Reads the new tensors of rebound captured variables into the entry when each has the type
/// the graph was compiled for (so no trace is needed). False when some capture changed in
/// another way (then the lambda must run again), with the first such change in `why`.
bool rebindCaptures(Entry& e, std::string& why) {
  for (size_t i = 0; i < e.guards.size(); ++i) {
    CaptureGuard& g = e.guards[i];
    if (g.variable->alive && g.variable->version == g.version) continue;
    const std::string which =
        "capture " + std::to_string(i) + (g.loc.known() ? " (" + g.loc.str() + ")" : "");
    if (!g.variable->alive) {
      why = which + ": the variable it was read through no longer exists";
      return false;
    }
    const Tensor& now = g.variable->current();
    const Tensor& before = e.captures[i];
    if (!g.direct) {
      why = which + " was rebound";
      return false;
    }
    if (!now.defined() || now.impl().symbolic()) {
      why = which + " was rebound to " + (now.defined() ? "a traced value" : "an undefined tensor");
      return false;
    }
    if (now.device() != before.device() || now.dtype() != before.dtype() ||
        now.shape() != before.shape()) {
      why = which + " " + typeText(before) + " -> " + typeText(now);
      return false;
    }
  }
  for (size_t i = 0; i < e.guards.size(); ++i) {
    CaptureGuard& g = e.guards[i];
    if (g.variable->version == g.version) continue;
    e.captures[i] = g.variable->current();
    g.version = g.variable->version;
  }
  return true;
}

}  // namespace

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
  state_->donated = state_->options.donate;
  std::sort(state_->donated.begin(), state_->donated.end());
  state_->donated.erase(std::unique(state_->donated.begin(), state_->donated.end()), state_->donated.end());
  state_->report.name = state_->name;
  state_->report.definedAt = state_->definedAt;
  state_->report.recompileLimit = state_->options.recompile_limit;
  state_->dynamic = DynamicDims(state_->options.dynamic, state_->definedAt);
  state_->report.dynamicDims = state_->dynamic.describe();
}

JitCore::~JitCore() = default;

bool JitCore::tracing() { return Tracer::current() != nullptr; }

std::string JitCore::ir() const {
  const Entry* last = state_->last;
  if (!last) return "";
  if (last->graph) return last->graph->program->ir();
  std::string all;  // a function with breaks: every segment's graph
  for (const auto& [key, graph] : state_->graphs.graphs()) all += graph->program->ir();
  return all;
}

JitReport JitCore::report() const {
  JitReport r = state_->report;
  r.cacheHits = state_->graphs.hits();
  r.cacheMisses = state_->graphs.misses();
  r.graphs.clear();
  for (const auto& [key, graph] : state_->graphs.graphs()) {
    JitReport::Graph& info = r.graphs.emplace_back(graph->info);
    graph->program->describe(info);
    bool replayed = false;  // the whole of a break-free function, replayed without the lambda
    for (const auto& e : state_->entries) replayed = replayed || e->graph == graph.get();
    if (!replayed)
      info.notReplayedBecause =
          graph->notReplayedBecause.empty()
              ? "a segment between graph breaks (the lambda runs on every call)"
              : graph->notReplayedBecause;
    if (info.kernels == 0 || info.cudaGraph || !info.noCudaGraphReason.empty()) continue;
    if (!replayed)
      info.noCudaGraphReason = info.notReplayedBecause;
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
    checkDonations(args, site);
    dispatch(args, results, fn, site);
    donate(args, site);
  } catch (const OutOfMemoryError& e) {
    // The runtime knows the bytes; the user needs the function and the line of the call.
    throw OutOfMemoryError("jit '" + state_->name + "': " + e.message(), SourceLoc::from(site));
  } catch (const GraphBreakError& e) {
    throw GraphBreakError(e.message(), inJitFunction(e.location()));
  } catch (const Error& e) {
    if (!isLambda(e.location())) throw;
    throw Error(e.message(), inJitFunction(e.location()));
  }
}

void JitCore::checkDonations(std::span<const Tensor* const> args, const Loc& site) const {
  for (size_t j = 0; j < args.size(); ++j)  // one donated to an earlier call (the message only then:
    if (args[j]->defined() && !args[j]->impl().donatedTo.empty())  // the per-call path allocates nothing)
      checkNotDonated(*args[j], "jit '" + state_->name + "': argument " + std::to_string(j), SourceLoc::from(site));
  for (int d : state_->donated) {
    if (d < 0 || static_cast<size_t>(d) >= args.size())
      throw Error("jit '" + state_->name + "': JitOptions::donate names argument " + std::to_string(d) +
                      ", but the call passes " + std::to_string(args.size()),
                  SourceLoc::from(site));
    for (size_t j = 0; j < args.size(); ++j)
      if (j != static_cast<size_t>(d) && args[j]->defined() && args[d]->defined() &&
          args[j]->impl_ptr() == args[d]->impl_ptr())
        throw Error("jit '" + state_->name + "': argument " + std::to_string(d) +
                        " is donated, and the same tensor is also argument " + std::to_string(j) +
                        " (the call could overwrite what it reads)",
                    SourceLoc::from(site));
  }
}

void JitCore::donate(std::span<const Tensor* const> args, const Loc& site) const {
  if (state_->donated.empty()) return;
  for (int d : state_->donated) {
    TensorImpl& impl = args[d]->impl();
    impl.buffer.reset();
    impl.host = ref::HostTensor();
    impl.donatedTo = "jit '" + state_->name + "' (argument " + std::to_string(d) + ", called at " +
                     SourceLoc::from(site).str() + ")";
  }
}

Entry* JitCore::findVariant(std::span<const Tensor* const> args) {
  State& s = *state_;
  for (const auto& e : s.symbolicEntries)
    if (coversSizes(*e, args, s.dynamic, s.symbolValues)) return e.get();
  return nullptr;
}

Entry* JitCore::compileForSizes(const Signature& sig, TraceRef fn, const Loc& site) {
  State& s = *state_;
  // Outside a range, or dims of one symbol that differ: an error at the call.
  const std::vector<int64_t> values = s.dynamic.valuesOf(sig.types, SourceLoc::from(site));
  SymbolicInference inferred = inferSymbolicTrace(fn, sig.types, sig.device, s.dynamic, values, s.donated);
  std::string sizes;
  for (size_t i = 0; i < values.size(); ++i)
    sizes += (i ? ", " : "") + s.dynamic.symbols()[i].name + " = " + std::to_string(values[i]);
  std::string line = "at " + sizes + " (" + std::to_string(inferred.traces) + " traces): ";
  if (!inferred.trace) {
    s.report.symbolicSizes.push_back(line + "no symbolic sizes: " + inferred.whyNot +
                                     (inferred.graphBreak ? "; its segments are fitted from the calls instead" : ""));
    s.dynamicBreaks = inferred.graphBreak;
    return nullptr;
  }
  const SymbolicTrace& st = *inferred.trace;
  line += "\n" + st.str(/*maxNodes=*/8);
  // The symbolic IR, verified at sample sizes (SymbolicTypes.h); TG_DUMP writes it.
  std::string whyNot;
  if (importedSymbolicIr(st, s.name, whyNot).empty()) {
    s.report.symbolicSizes.push_back(line + "no symbolic IR: " + whyNot);
    return nullptr;
  }
  for (const CaptureSource& src : st.trace.captureSources)
    if (whyNot.empty() && !src.variable->alive)
      whyNot = "the tensor captured at " + (src.loc.known() ? src.loc.str() : std::string("its return")) +
               " is read through a temporary Tensor, so tg cannot see when it changes";
  // The variant: the symbols the trace held at the call's size (a size of 1) are fixed.
  auto variant = std::make_unique<Entry>();
  variant->signature = sig;
  variant->symbolic = true;
  std::string fixedKey;
  for (size_t k = 0; k < values.size(); ++k) {
    const bool fixed = k < st.fixed.size() && st.fixed[k];
    variant->fixed.push_back(fixed ? values[k] : -1);
    fixedKey += fixed ? std::to_string(values[k]) + "," : std::string("?,");
  }
  variant->sameAs = st.sameAs;
  for (size_t k = 0; k < st.sameAs.size(); ++k)
    if (st.sameAs[k] >= 0) fixedKey += std::to_string(k) + "=" + std::to_string(st.sameAs[k]) + ",";
  variant->symbolOf.resize(sig.types.size());
  for (size_t i = 0; i < sig.types.size(); ++i) variant->symbolOf[i].assign(sig.types[i].shape.size(), -1);
  for (const DynamicDims::Site& site : s.dynamic.sites()) {
    const int d = DynamicDims::normalizedDim(site, sig.types[static_cast<size_t>(site.arg)].shape.size());
    variant->symbolOf[static_cast<size_t>(site.arg)][static_cast<size_t>(d)] = site.symbol;
  }
  if (whyNot.empty()) {
    try {
      const size_t before = s.graphs.size();
      CompiledGraph& graph = s.graphs.getSymbolic(st, sig.device, fixedKey);
      if (s.graphs.size() > before && !(s.entries.empty() && s.symbolicEntries.empty()))
        s.report.recompiles.push_back("sizes " + sizes + ": no graph compiled before serves them");
      variant->graph = &graph;
      variant->captures = st.trace.captures;
      graph.info.captures.clear();
      for (size_t i = 0; i < st.trace.captures.size(); ++i) {
        const CaptureSource& src = st.trace.captureSources[i];
        variant->guards.push_back({src.variable, src.version, src.direct, src.loc});
        graph.info.captures.push_back({typeText(st.trace.captures[i]), src.loc, fn.insideClosure(src.variable->object)});
      }
    } catch (const Error& e) {
      whyNot = e.message();
    }
  }
  if (!variant->graph) {
    s.report.symbolicSizes.push_back(line + "not compiled for the ranges (compiled for these sizes instead): " + whyNot);
    return nullptr;
  }
  s.report.symbolicSizes.push_back(line + "compiled once for every size in the ranges (graph " +
                                   std::to_string(variant->graph->info.index) + ")");
  variant->checkedSizes.push_back(values);
  variant->symbolicTrace = std::make_shared<const SymbolicTrace>(std::move(*inferred.trace));
  s.symbolValues = values;
  s.symbolicEntries.push_back(std::move(variant));
  return s.symbolicEntries.back().get();
}

void JitCore::checkSizes(Entry& variant, std::span<const Tensor* const> args, TraceRef fn, const Loc& site) {
  State& s = *state_;
  const std::vector<int64_t>& values = s.symbolValues;
  for (const std::vector<int64_t>& done : variant.checkedSizes)
    if (done == values) return;
  variant.checkedSizes.push_back(values);
  const Signature now = signatureOf(args, s.definedAt);
  const std::string why = checkSymbolicTrace(*variant.symbolicTrace, fn, now.types, now.device, values, s.donated);
  if (why.empty()) return;
  variant.graph = nullptr;  // serves no call any more
  throw Error("jit '" + s.name + "': dynamic dims: " + why +
                  ". The lambda must build one graph for every size in its dims' ranges (C++ control flow on "
                  "a size is invisible to tg): mark as dynamic only dims it does not branch on",
              SourceLoc::from(site));
}

void JitCore::warnIfPastRecompileLimit() {
  State& s = *state_;
  const size_t compiled = s.dynamicBreaks ? s.report.recompiles.size() + 1 : s.entries.size() + s.symbolicEntries.size();
  if (static_cast<int>(compiled) <= s.options.recompile_limit || s.report.recompileLimitExceeded) return;
  s.report.recompileLimitExceeded = true;
  std::fprintf(stderr,
               "tg: warning: jit function '%s' (%s) has compiled %zu signatures, more than "
               "its recompile_limit of %d; last: %s. Pass tensors of fixed shapes, mark the dims "
               "that change as dynamic (JitOptions::dynamic), or raise JitOptions::recompile_limit.\n",
               s.name.c_str(), s.definedAt.str().c_str(), compiled, s.options.recompile_limit,
               s.report.recompiles.empty() ? "?" : s.report.recompiles.back().c_str());
}

bool JitCore::isLambda(const SourceLoc& loc) {
  return loc.readableFunction().rfind("a lambda in ", 0) == 0;
}

SourceLoc JitCore::inJitFunction(const SourceLoc& loc) const {
  if (!isLambda(loc)) return loc;  // a named function the lambda calls says more
  SourceLoc named = loc;
  named.function = "jit '" + state_->name + "'";
  return named;
}

void JitCore::dispatch(std::span<const Tensor* const> args, std::span<Tensor> results,
                     TraceRef fn, const Loc& site) {
  State& s = *state_;
  ++s.report.calls;
  // The hot path: the last signature again, compared in place (for a variant compiled for
  // ranges of sizes: sizes it serves, read into s.symbolValues).
  Entry* entry = nullptr;
  if (s.last)
    entry = (s.last->symbolic ? coversSizes(*s.last, args, s.dynamic, s.symbolValues)
                              : matches(s.last->signature, args))
                ? s.last
                : nullptr;
  if (!entry && !s.symbolicEntries.empty()) entry = findVariant(args);
  Signature computed;
  if (!entry) {
    computed = signatureOf(args, s.definedAt);
    for (const auto& e : s.entries)
      if (e->signature == computed) entry = e.get();
  }

  // A variant's first sizes: the lambda traced there must build the graph compiled.
  if (entry && entry->symbolic && entry->checkedSizes.size() < Entry::kSizeChecks)
    checkSizes(*entry, args, fn, site);

  // Break-free: replay without running the lambda, unless a captured variable changed.
  std::string captureChange;
  if (entry && entry->graph) {
    bool replay = capturesUnchanged(*entry);
    if (!replay && rebindCaptures(*entry, captureChange)) {
      ++s.report.captureRebinds;
      replay = true;
    }
    if (replay) {
      ++s.report.replays;
      ++entry->graph->info.runs;
      s.last = entry;
      entry->graph->program->execute({args, entry->captures}, results, /*replay=*/true,
                                     entry->symbolic ? std::span<const int64_t>(s.symbolValues)
                                                     : std::span<const int64_t>());
      return;
    }
    ++s.report.captureRetraces;  // the lambda decides what the changed capture means
    entry->graph = nullptr;
    if (entry->symbolic) {  // that variant serves no call any more: this one compiles anew
      entry = nullptr;
      computed = signatureOf(args, s.definedAt);
      for (const auto& e : s.entries)
        if (e->signature == computed) entry = e.get();
    }
  }

  if (!entry && !s.dynamic.empty() && !s.dynamicBreaks) {
    if (Entry* variant = compileForSizes(computed, fn, site)) {
      warnIfPastRecompileLimit();
      s.last = variant;
      ++variant->graph->info.runs;
      variant->graph->program->execute({args, variant->captures}, results, /*replay=*/false, s.symbolValues);
      return;
    }
  }
  std::vector<int64_t> symbolValues;
  if (s.dynamicBreaks && (!entry || entry == s.segmentedEntry.get())) {
    // Every signature runs the lambda: one entry, its signature this call's; the segments'
    // compiles are the recompiles.
    if (!s.segmentedEntry) s.segmentedEntry = std::make_unique<Entry>();
    entry = s.segmentedEntry.get();
    computed = signatureOf(args, s.definedAt);
    entry->signature = computed;
    symbolValues = s.dynamic.valuesOf(computed.types, SourceLoc::from(site));
  } else if (!entry) {
    if (!s.entries.empty()) s.report.recompiles.push_back(recompileReason(s.entries, computed));
    auto created = std::make_unique<Entry>();
    created->signature = computed;
    entry = created.get();
    s.entries.push_back(std::move(created));
    warnIfPastRecompileLimit();
  }
  s.last = entry;
  std::vector<Tensor> inputs;
  inputs.reserve(args.size());
  for (const Tensor* t : args) inputs.push_back(*t);
  const uint64_t missesBefore = s.graphs.misses();
  SegmentedResult r = runSegmented(s, inputs, entry->signature, fn, symbolValues);
  if (!captureChange.empty() && s.graphs.misses() != missesBefore)
    s.report.recompiles.push_back(captureChange);
  if (entry == s.segmentedEntry.get() && s.graphs.misses() != missesBefore && s.report.calls > 1) {
    std::string sizes;
    for (size_t i = 0; i < symbolValues.size(); ++i)
      sizes += (i ? ", " : "") + s.dynamic.symbols()[i].name + " = " + std::to_string(symbolValues[i]);
    s.report.recompiles.push_back("sizes " + sizes + ": " + std::to_string(s.graphs.misses() - missesBefore) +
                                  " graph segment(s) compiled for them (no segment compiled once for the "
                                  "ranges serves them yet)");
    warnIfPastRecompileLimit();
  }
  if (r.outputs.size() != results.size())
    throw Error("internal error: jit '" + s.name + "' produced " +
                std::to_string(r.outputs.size()) + " results for " +
                std::to_string(results.size()) + " expected");
  for (size_t i = 0; i < r.outputs.size(); ++i) results[i] = std::move(r.outputs[i]);
  // (The entry of a function with breaks over dynamic dims serves every signature: it never
  // replays, even a call that did not break.)
  if (r.broke || !r.only || entry == s.segmentedEntry.get()) return;
  r.only->info.captures = describeCaptures(r, fn);
  // Replays must be able to tell when a captured variable changes: a tensor read through a
  // temporary (a copy the lambda made and dropped) has no variable left to watch, so such a
  // function runs its lambda on every call instead (always right, and the report says why).
  entry->guards.clear();
  for (const CaptureSource& src : r.sources) {
    if (!src.variable->alive) {
      entry->guards.clear();
      r.only->notReplayedBecause =
          "the lambda runs on every call: the tensor captured at " +
          (src.loc.known() ? src.loc.str() : std::string("its return")) +
          " was read through a temporary Tensor that no longer exists, so tg cannot see when "
          "it changes; read it from a variable the lambda captures (by reference or by value)";
      return;
    }
    entry->guards.push_back({src.variable, src.version, src.direct, src.loc});
  }
  r.only->notReplayedBecause.clear();
  entry->graph = r.only;
  entry->captures = std::move(r.captures);
}

}  // namespace tg::detail
