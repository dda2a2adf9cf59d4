//===- SyncPoints.cpp - Sync-point log, graph-break entry, synchronize ----===//
#include "tg/Frontend/SyncPoints.h"

#include "tg/Frontend/Dispatch.h"
#include "tg/Frontend/JitState.h"
#include "tg/Frontend/Tracer.h"
#include "tg/Runtime/CheckFlag.h"

#include <mutex>

namespace tg {

namespace {

std::mutex& logMutex() {
  static std::mutex m;
  return m;
}

std::vector<JitReport::Event>& log() {
  static std::vector<JitReport::Event>* events = new std::vector<JitReport::Event>();
  return *events;
}

}  // namespace

std::vector<JitReport::Event> sync_points() {
  std::lock_guard<std::mutex> lock(logMutex());
  return log();
}

void clear_sync_points() {
  std::lock_guard<std::mutex> lock(logMutex());
  log().clear();
}

void synchronize(Loc loc) {
  if (detail::Tracer::current()) return;  // inside a trace nothing has been launched yet
  detail::recordSync("synchronize()", "waits until the GPU has finished all queued work",
                     "synchronize only where the host needs results (timing, before reading)",
                     SourceLoc::from(loc));
  if (rt::Gpu* gpu = rt::Gpu::get()) gpu->synchronize();
  detail::raiseFailedChecks();
}

namespace detail {

void recordSync(const char* what, const char* reason, const char* hint, const SourceLoc& loc) {
  JitReport::Event e;
  e.what = what;
  e.reason = reason;
  e.hint = hint;
  e.loc = loc;
  std::lock_guard<std::mutex> lock(logMutex());
  JitState::note(log(), e);
}

void raiseFailedChecks() {
  std::optional<CheckFailure> failure = rt::takeCheckFailure();
  if (failure) throw Error("check failed: " + failure->message, failure->loc);
}

void graphBreak(const Tensor& t, const char* what, const char* hint, const SourceLoc& loc,
                bool approximateLocation) {
  Tracer* tracer = Tracer::current();
  if (!tracer || t.impl().tracer.get() != tracer || !tracer->breakHandler())
    throw Error(std::string(what) +
                    ": the tensor is a traced value of a tg::jit function used outside its trace",
                loc);
  JitReport::Event e;
  e.what = what;
  e.reason = "reads a value the device has not computed yet: tracing stops, the graph so far "
             "runs, and the host waits for it";
  e.hint = hint;
  e.loc = loc;
  e.approximateLocation = approximateLocation;
  tracer->breakHandler()->onBreak(t, e);
}

}  // namespace detail
}  // namespace tg
