//===- Binding.cpp - Tensor copies, assignments and the variables they watch ===//
//
// Tensor's copy and assignment operators (tg.h): outside tracing they copy a shared_ptr, as
// before, plus one thread-local load; while tracing, a copy of a concrete tensor links to the
// variable it came from (Binding.h). An assignment to a watched variable bumps its version.
//
//===----------------------------------------------------------------------===//
#include "tg/Frontend/Binding.h"

#include "tg/Frontend/TensorImpl.h"
#include "tg/Frontend/Tracer.h"

namespace tg {

namespace detail {

namespace {

/// The tracer recording now, when copying `t` should link the copy to `t`'s variable: a
/// concrete tensor copied while a trace is recorded (tg's ops copy their operands into
/// vectors; the tracer captures those copies).
Tracer* linkingTracer(const Tensor& t) {
  Tracer* tracer = Tracer::current();
  return tracer && t.impl_ptr() && !t.impl_ptr()->symbolic() ? tracer : nullptr;
}

/// Whether `t` is the variable its Binding watches (not a copy holding a link).
bool isVariable(const Tensor& t) {
  Binding* b = Binding::get(t);
  return b && b->object == &t;
}

/// A link from a copy of `t` to `t`'s variable, for `tracer`'s copies (one reference).
Binding* linkFor(Tracer& tracer, const Tensor& t) {
  return tracer.linkTo(Binding::variableOf(t));
}

}  // namespace

Binding* Binding::variableOf(const Tensor& t) {
  Binding* b = t.binding_;
  if (b && b->object == nullptr) {  // a copy's link
    const Tracer* tracer = Tracer::current();
    if (tracer && b->trace == tracer->id()) {
      b->root->refs.fetch_add(1, std::memory_order_relaxed);
      return b->root;
    }
    releaseBinding(b, nullptr);  // made by an earlier trace: the copy is a variable now
    b = nullptr;
  }
  if (!b) {
    b = new Binding(&t);  // t's own reference
    t.binding_ = b;
  }
  b->refs.fetch_add(1, std::memory_order_relaxed);  // the caller's
  return b;
}

void releaseBinding(Binding* binding, const Tensor* holder) {
  while (binding) {
    if (holder && binding->object == holder) binding->alive = false;  // the variable is gone
    if (binding->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    Binding* root = binding->root;  // a link holds a reference to its variable
    delete binding;
    binding = root;
    holder = nullptr;
  }
}

void movedBinding(Tensor& to, Tensor& from) {
  Binding* b = Binding::get(from);
  if (b->object == &from) {
    ++b->version;  // a watched variable was moved from: it now holds nothing
  } else {
    Binding::set(to, b);  // a copy's link travels with its value
    Binding::set(from, nullptr);
  }
}

}  // namespace detail

Tensor::Tensor(const Tensor& other) : impl_(other.impl_) {
  if (detail::Tracer* tracer = detail::linkingTracer(other))
    binding_ = detail::linkFor(*tracer, other);
}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this == &other) return *this;
  detail::Tracer* tracer = detail::linkingTracer(other);
  detail::Binding* link = tracer ? detail::linkFor(*tracer, other) : nullptr;
  impl_ = other.impl_;
  if (detail::isVariable(*this)) {
    ++binding_->version;
    detail::releaseBinding(link, nullptr);  // a variable keeps its own identity
  } else {
    detail::releaseBinding(binding_, nullptr);
    binding_ = link;
  }
  return *this;
}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this == &other) return *this;
  impl_ = std::move(other.impl_);
  if (detail::isVariable(*this)) {
    ++binding_->version;
    if (detail::isVariable(other)) ++other.binding_->version;
  } else {
    detail::releaseBinding(binding_, nullptr);
    binding_ = nullptr;
    if (other.binding_) detail::movedBinding(*this, other);
  }
  return *this;
}

}  // namespace tg
