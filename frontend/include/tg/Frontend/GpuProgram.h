//===- GpuProgram.h - The GPU backend's program (internal) ----------------===//
//
// A compiled rt::Plan, run by the runtime's Executor on tg's stream: no host sync, results
// stay on the device; replays of a break-free function may launch as one CUDA graph. The jit
// (compileTrace) and `tgc run --device cuda` both run plans through it. MLIR-free.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Frontend/Program.h"
#include "tg/Runtime/Plan.h"

#include <memory>
#include <string>

namespace tg::rt {
class Gpu;
}

namespace tg::detail {

/// `ir` is what Program::ir() returns; `cudaGraphs` lets replays launch as a CUDA graph;
/// `profile` times every launch (JitOptions::profile).
std::unique_ptr<Program> makeGpuProgram(rt::Plan plan, rt::Gpu& gpu, std::string ir,
                                        bool cudaGraphs, bool profile = false);

}  // namespace tg::detail
