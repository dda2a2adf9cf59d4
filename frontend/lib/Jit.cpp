//===- Jit.cpp - Signature cache, tracing and replay of jit functions -----===//
//
// The per-call path: compute the call's signature (dtype, shape and device of each argument),
// find its compiled program, run it. A miss traces the lambda on symbolic tensors and compiles
// the trace. MLIR-free: compilation is behind compileTrace().
//
//===----------------------------------------------------------------------===//
#include "tg/Frontend/Dispatch.h"
#include "tg/Frontend/Program.h"
#include "tg/Frontend/Tracer.h"

#include <cctype>

namespace tg::detail {

namespace {

struct Signature {
  std::vector<graph::TensorType> types;
  Device device = Device::CPU;
  bool operator==(const Signature&) const = default;
};

struct Entry {
  Signature signature;
  std::unique_ptr<Program> program;
};

/// "jit_mlp_cpp_42" from ".../mlp.cpp:42": a readable, valid MLIR symbol name.
std::string defaultName(const SourceLoc& loc) {
  std::string file = loc.file;
  if (size_t slash = file.find_last_of('/'); slash != std::string::npos) file = file.substr(slash + 1);
  std::string name = "jit_" + file + "_" + std::to_string(loc.line);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return name;
}

}  // namespace

struct JitCore::State {
  JitOptions options;
  SourceLoc definedAt;
  std::string name;
  std::vector<std::unique_ptr<Entry>> entries;
  Entry* last = nullptr;
};

JitCore::JitCore(JitOptions options, Loc definedAt) : state_(std::make_unique<State>()) {
  state_->definedAt = SourceLoc::from(definedAt);
  state_->name = options.name.empty() ? defaultName(state_->definedAt) : options.name;
  state_->options = std::move(options);
}

JitCore::~JitCore() = default;

bool JitCore::tracing() { return Tracer::current() != nullptr; }

std::string JitCore::ir() const { return state_->last ? state_->last->program->ir() : ""; }

std::string JitCore::traceIr(const std::vector<TensorSpec>& specs, const TraceFn& fn) const {
  auto tracer = std::make_shared<Tracer>(specs.size());
  std::vector<Tensor> symbolic;
  for (size_t i = 0; i < specs.size(); ++i)
    symbolic.push_back(
        tracer->addArgument(tracer, i, {specs[i].dtype, specs[i].shape}, Device::CPU));
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

static Signature signatureOf(const std::vector<Tensor>& inputs, const SourceLoc& where) {
  Signature sig;
  sig.device = inputs.empty() ? default_device() : Device::CPU;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
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

std::vector<Tensor> JitCore::call(const std::vector<Tensor>& inputs, const TraceFn& fn) {
  State& s = *state_;
  Signature sig = signatureOf(inputs, s.definedAt);
  Entry* entry = nullptr;
  for (const auto& e : s.entries)
    if (e->signature == sig) entry = e.get();

  if (!entry) {
    auto tracer = std::make_shared<Tracer>(inputs.size());
    std::vector<Tensor> symbolic;
    for (size_t i = 0; i < inputs.size(); ++i)
      symbolic.push_back(tracer->addArgument(tracer, i, sig.types[i], sig.device));
    std::vector<Tensor> outputs;
    try {
      Tracer::Scope scope(tracer.get());
      outputs = fn(symbolic);
      for (size_t i = 0; i < outputs.size(); ++i)
        if (!outputs[i].defined())
          throw Error("jit: result " + std::to_string(i) + " of the lambda is undefined",
                      s.definedAt);
      tracer->setOutputs(outputs);
    } catch (...) {
      tracer->finish();
      throw;
    }
    tracer->finish();
    auto created = std::make_unique<Entry>();
    created->signature = std::move(sig);
    created->program = compileTrace(tracer->trace(), s.options, created->signature.device, s.name);
    entry = created.get();
    s.entries.push_back(std::move(created));
  }
  s.last = entry;
  return entry->program->run(inputs);
}

}  // namespace tg::detail
