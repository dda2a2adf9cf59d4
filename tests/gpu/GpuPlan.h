//===- GpuPlan.h - The compiled plan of traced IR, for the GPU tests ------===//
//
// Tests that look at what tg compiled (the kernels' sources and summaries), or run a plan
// through rt::Executor themselves, compile traced IR (tg::jit(fn).trace_ir(...)) the way the
// jit does: for this GPU's arch and SM count, with the TG_* tuning knobs of the environment.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Runtime/Gpu.h"
#include "tg/Runtime/Plan.h"

#include <string>

namespace tggpu {

/// The plan of `ir` for `gpu`. Throws std::runtime_error when the IR does not parse.
tg::rt::Plan planFor(const std::string& ir, tg::rt::Gpu& gpu);

}  // namespace tggpu
