//===- SyncPoints.h - Host reads, blocking copies and waits (internal) ----===//
//
// Every place the host waits for the device is recorded with the user's line: inside a jit
// function in its report (a read there is also a graph break), outside in a process-wide log
// (tg::sync_points()). Waiting is also when failed tg::checks surface.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/tg.h"

namespace tg::detail {

/// Records a sync point outside any jit function.
void recordSync(const char* what, const char* reason, const char* hint, const SourceLoc& loc);

/// Raises the first tg::check that failed since the last call, if any (tg::Error with the
/// check's message and line). Called at every sync point, after the device is idle.
void raiseFailedChecks();

/// Cuts the active trace at a read of traced tensor `t` (a graph break): runs what was
/// recorded, makes `t` concrete, and records the break. Throws GraphBreakError under fullgraph.
void graphBreak(const Tensor& t, const char* what, const char* hint, const SourceLoc& loc,
                bool approximateLocation);

}  // namespace tg::detail
