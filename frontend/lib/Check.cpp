//===- Check.cpp - tg::check: asynchronous device-side checks -------------===//
//
// A check never waits: traced, it is a tg.check op in the graph (its own small kernel); eager
// on the GPU, the same kernel runs alone; on the CPU the reference evaluates it at once. A
// failure is recorded (a device flag, or the host registry) and raised as a tg::Error with the
// check's message and line at the next sync point (SyncPoints.cpp).
//
//===----------------------------------------------------------------------===//
#include "tg/Frontend/Dispatch.h"
#include "tg/Frontend/Tracer.h"
#include "tg/Support/CheckSites.h"

#include <algorithm>

namespace tg {

void check(const Tensor& cond, const std::string& message, Loc loc) {
  using graph::OpKind;
  if (!cond.defined()) detail::fail("check", "the condition is an undefined tensor", loc);
  if (cond.dtype() != DType::Bool)
    detail::fail("check",
                 std::string("the condition must be a bool tensor (a comparison), got ") +
                     dtype_name(cond.dtype()),
                 loc);
  graph::OpAttrs attrs;
  attrs.checkId = CheckSites::instance().add(message, SourceLoc::from(loc));
  const graph::TensorType placeholder{DType::Bool, {}};
  if (detail::Tracer* tracer = detail::Tracer::current()) {
    if (cond.impl().symbolic() && cond.impl().tracer.get() != tracer)
      detail::fail("check", "the condition is a traced value of another trace", loc);
    tracer->record(OpKind::Check, attrs, {cond}, placeholder, SourceLoc::from(loc));
    return;
  }
  if (cond.impl().symbolic())
    detail::fail("check", "the condition is a traced value used outside its trace", loc);
  if (cond.device() == Device::CUDA) {
    detail::applyOnGpu(OpKind::Check, attrs, {cond}, placeholder, loc);
    return;
  }
  std::vector<int32_t> values = detail::hostOf(cond).toInts();
  if (std::find(values.begin(), values.end(), 0) != values.end())
    CheckSites::instance().fail(attrs.checkId);
}

}  // namespace tg
