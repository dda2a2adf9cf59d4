//===- Binding.h - Tensor variables that jit functions read (internal) ----===//
//
// A jit function replays its compiled graph without running the lambda, on the tensors the
// trace captured. A user who later assigns a new tensor to a captured variable (new weights
// after an optimizer step: `w = w - lr * g`) must not get a result computed from the old one.
// So the trace watches the *variables* it read, not only the tensors:
//
//  - A Binding belongs to one Tensor object (a variable: captured by reference, a member of a
//    captured struct, an element of a captured vector, the lambda's by-value copy). The object
//    points at it (Tensor::binding_) and bumps `version` at every assignment; its destructor
//    clears `alive`.
//  - Copies made while tracing (tg's ops copy their operands) point at a link to the Binding
//    of the variable they were copied from, so the tracer learns which variable each captured
//    tensor came from, however many copies lie in between. A link counts only in the trace
//    that made it: in a later trace a copy that still exists (a member the lambda assigned,
//    say) is a variable of its own.
//  - A replay compares each capture's (binding, version) with the ones its trace saw: a few
//    loads per capture. A variable that holds another tensor of the same type is read again
//    without tracing; any other change runs the lambda again (recompiling only if the graph is
//    new, with the reason in the report).
// What stays frozen, as for host scalars: host-side state the lambda's control flow reads.
//
// Bindings are shared by the variable, the copies and the jit entries that watch it; the last
// reference deletes it. MLIR-free.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/tg.h"

#include <atomic>
#include <cstdint>

namespace tg::detail {

struct Binding {
  /// A variable's Binding; `object` is the variable.
  explicit Binding(const Tensor* object) : object(object) {}
  /// A link from copies made by trace `trace` to the variable `root` (whose reference it
  /// takes over).
  Binding(Binding* root, uint64_t trace) : object(nullptr), root(root), trace(trace) {}

  /// The watched variable (valid while `alive`); null for a link.
  const Tensor* object;
  Binding* root = nullptr;
  uint64_t trace = 0;
  /// Bumped whenever the variable is assigned (or moved from).
  uint64_t version = 0;
  bool alive = true;
  std::atomic<int> refs{1};

  /// The Binding of the variable `t` stands for in the trace being recorded, with one more
  /// reference for the caller: the origin's when `t` is a copy this trace made, else `t`'s
  /// own (created on first use: `t` becomes a watched variable).
  static Binding* variableOf(const Tensor& t);
  /// The tensor the variable holds now.
  const Tensor& current() const { return *object; }
  static Binding* get(const Tensor& t) { return t.binding_; }
  static void set(const Tensor& t, Binding* b) { t.binding_ = b; }
};

/// One counted reference to a Binding.
class BindingRef {
 public:
  BindingRef() = default;
  /// Adopts a reference the caller already holds (Binding::of returns one).
  explicit BindingRef(Binding* b) : b_(b) {}
  BindingRef(const BindingRef& o) : b_(o.b_) {
    if (b_) b_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  BindingRef(BindingRef&& o) noexcept : b_(o.b_) { o.b_ = nullptr; }
  BindingRef& operator=(BindingRef o) noexcept {
    std::swap(b_, o.b_);
    return *this;
  }
  ~BindingRef() { releaseBinding(b_, nullptr); }

  Binding* get() const { return b_; }
  Binding* operator->() const { return b_; }
  explicit operator bool() const { return b_ != nullptr; }

 private:
  Binding* b_ = nullptr;
};

}  // namespace tg::detail
