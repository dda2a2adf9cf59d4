//===- Tracer.h - Recording a lambda's ops into a Trace (internal) --------===//
//
// While tg::jit runs a lambda on symbolic tensors, every op appends a TraceNode instead of
// computing. Concrete tensors the lambda uses (captured weights) become implicit inputs that
// are read from their storage on every call. A Trace is a plain list: the importer turns it
// into a tg module. MLIR-free.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Frontend/Binding.h"
#include "tg/Frontend/TensorImpl.h"
#include "tg/Graph/OpKind.h"
#include "tg/Reference/HostTensor.h"

#include <unordered_map>
#include <vector>

namespace tg::detail {

struct TraceNode {
  graph::OpKind kind;
  graph::OpAttrs attrs;
  std::vector<int> operands;  ///< Indices of earlier nodes.
  graph::TensorType type;
  SourceLoc loc;
  int inputIndex = -1;          ///< Input: position among the program's inputs.
  ref::HostTensor constant;     ///< Constant: the value (one element when splat).
  bool splat = false;           ///< Constant: one value repeated over `type.shape`.
};

/// Where a captured tensor came from: the variable the lambda read it through (Binding.h).
struct CaptureSource {
  BindingRef variable;
  uint64_t version = 0;  ///< the variable's version when the trace read it
  /// The variable held this very tensor (not a copy of an older one that the lambda kept):
  /// when the variable is rebound to a tensor of the same type, a replay may read that tensor.
  bool direct = false;
  SourceLoc loc;         ///< the op that first read it
};

struct Trace {
  std::vector<TraceNode> nodes;
  std::vector<int> outputs;     ///< Node index of each result, in order.
  size_t numArgs = 0;           ///< Inputs [0, numArgs) are the call's arguments ...
  std::vector<Tensor> captures; ///< ... and the rest are these captured tensors, in order,
  std::vector<CaptureSource> captureSources;  ///< read through these variables.
  /// Arguments whose memory the program may reuse for its results (JitOptions::donate; the
  /// first segment only: later ones have no arguments). Ascending.
  std::vector<int> donated;
};

/// A string that is equal for two traces exactly when they describe the same computation:
/// op kinds, attributes, types, connectivity, constants and outputs (not source locations).
/// Keys caches of compiled traces.
std::string structuralKey(const Trace& trace);
/// The part of structuralKey that one node contributes.
void appendNodeKey(std::string& key, const TraceNode& node);

/// Called when the lambda reads a traced tensor's value (a graph break). Returns the tensor,
/// now concrete; tracing continues in a new segment (Segments.cpp).
class BreakHandler {
 public:
  virtual ~BreakHandler() = default;
  virtual void onBreak(const Tensor& t, JitReport::Event event) = 0;
};

class Tracer {
 public:
  explicit Tracer(size_t numArgs);
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  /// A number no other tracer of the process has.
  uint64_t id() const { return id_; }
  /// The link from this trace's copies to `variable` (one per variable; Binding.h), with a
  /// reference for the caller. Takes over the caller's reference to `variable`.
  Binding* linkTo(Binding* variable);

  /// The tracer recording on this thread, or null.
  static Tracer* current();
  /// Makes `tracer` current on this thread and returns the previous one.
  static Tracer* exchangeCurrent(Tracer* tracer);

  /// Makes `tracer` current on this thread for the scope's lifetime.
  class Scope {
   public:
    explicit Scope(Tracer* tracer);
    ~Scope();

   private:
    Tracer* previous_;
  };

  /// A symbolic tensor for argument `index` of the call. The first call also tells the tracer
  /// its own shared_ptr (symbolic tensors keep their tracer alive).
  Tensor addArgument(const std::shared_ptr<Tracer>& self, size_t index,
                     const graph::TensorType& type, Device device);
  /// For a tracer without arguments (a segment after a break).
  void bind(const std::shared_ptr<Tracer>& self, Device device) {
    self_ = self;
    device_ = device;
  }
  /// Records `kind` on `operands` (symbolic values of this trace, or concrete tensors, which
  /// are captured) and returns the symbolic result of type `type`.
  Tensor record(graph::OpKind kind, const graph::OpAttrs& attrs,
                const std::vector<Tensor>& operands, const graph::TensorType& type,
                const SourceLoc& loc);
  /// Records a constant; `value` has one element when `splat`.
  Tensor recordConstant(ref::HostTensor value, const graph::TensorType& type, bool splat,
                        const SourceLoc& loc);
  /// Marks the lambda's results. A concrete result (a captured tensor returned unchanged) is
  /// captured first. Call when the lambda has returned: a copy this trace made that still
  /// exists then (other than `outputs` and the trace's own) is kept by the program (a member
  /// the lambda assigned, say), so the capture it leads to is not `direct`: a rebinding of its
  /// variable then runs the lambda again, which reads the kept copy.
  void setOutputs(const std::vector<Tensor>& outputs);
  /// The arguments the program may reuse the memory of (Trace::donated).
  void setDonated(std::vector<int> donated) { trace_.donated = std::move(donated); }

  /// Stops recording; symbolic tensors of this trace are invalid from now on.
  void finish() { active_ = false; }
  bool active() const { return active_; }
  const Trace& trace() const { return trace_; }
  Device device() const { return device_; }
  /// The symbolic tensors of this trace that the program still holds (the values a graph
  /// break must compute, since the lambda may use any of them later).
  std::vector<Tensor> liveSymbolic() const;

  void setBreakHandler(BreakHandler* handler) { breakHandler_ = handler; }
  BreakHandler* breakHandler() const { return breakHandler_; }

 private:
  /// The node index of `t` in this trace, capturing it (first read by the op at `loc`) if it
  /// is concrete. One input per variable: two variables holding the same tensor are two
  /// inputs, so that rebinding either is seen.
  int valueOf(const Tensor& t, const SourceLoc& loc);
  Tensor symbolic(int node);

  Trace trace_;
  uint64_t id_;
  std::unordered_map<const Binding*, Binding*> links_;  // variable -> link (one reference)
  bool active_ = true;
  Device device_ = Device::CPU;
  std::weak_ptr<Tracer> self_;
  std::unordered_map<const Binding*, int> captured_;  // by variable
  std::vector<std::weak_ptr<TensorImpl>> created_;
  BreakHandler* breakHandler_ = nullptr;
};

}  // namespace tg::detail
