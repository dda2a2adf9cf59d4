//===- ProgramCheck.h - Run one random program every way and compare ------===//
//
// One seed of tests/common/RandomGraph.h's richer generator, checked on one device:
//  - cuda: tg::jit fused (JitOptions{}) and unfused ({.fuse = false}) on CUDA tensors; the
//    fused results against the interpreter of the fused module with f32 inside each kernel
//    (InterpretOptions::f32InsideFusions; for programs with graph breaks, the reference),
//    the unfused ones against the reference (tg::jit on CPU tensors: the interpreter), each
//    within the program's modelled tolerance (3 x sensitivity + 1 ulp; bit-exact when no step
//    is inexact), and fused == unfused bit for bit when every value is f32 and no matmul
//    (whose path may differ) is involved.
//  - cpu (no GPU: CI): the traced module through the pipeline up to "fuse" with fusion on and
//    off, interpreted op by op (bit-identical to each other, and to the traced module unless
//    softmax/layer_norm were decomposed: then within the tolerance) and with f32 inside
//    fusions (within the tolerance); the whole pipeline to CUDA C++ with fusion on and off,
//    every kernel compiled by NVRTC for sm_90a; programs with graph breaks through tg::jit on
//    CPU tensors, each segment's module compiled the same way.
// Both: the generator's own reference (eager CPU execution) must equal tg::jit on CPU
// tensors bit for bit.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "RandomGraph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tgrandom {

enum class OutcomeKind { Ok = 0, Mismatch, CompileError, Crash, Invalid };

/// "ok", "mismatch", "compile error", "crash", "invalid program".
const char* outcomeName(OutcomeKind kind);

struct Outcome {
  OutcomeKind kind = OutcomeKind::Ok;
  /// What failed, first line first; the details (worst element, tolerance, IR) follow.
  std::string message;
  std::vector<std::string> features;
  int kernelsFused = 0;
  int kernelsUnfused = 0;
  /// NVRTC compilations done (cpu mode; a kernel whose source was compiled before is skipped).
  int nvrtcCompiles = 0;
  /// The self-check of the tolerance: simulated miscompiles of one result (kMutations kinds:
  /// each element replaced by its neighbour's; every element 2^-5 relative too large; one
  /// element off by a tenth of the result's largest magnitude) that changed it (tried) and that
  /// the comparison rejected (caught).
  static constexpr int kMutations = 3;
  int mutationsTried[kMutations] = {};
  int mutationsCaught[kMutations] = {};
};

/// "neighbour", "scale", "one element".
const char* mutationName(int kind);

struct CheckOptions {
  tg::Device device = tg::Device::CPU;
  /// Where cuda mode runs the jit: CUDA, or the CPU (--cuda-on-cpu: the cuda mode's own logic
  /// checked without a GPU; its "GPU" results are then the interpreter's, op by op).
  tg::Device jitDevice = tg::Device::CUDA;
  tgtest::RandomProgramOptions program;
  /// randomProgram(seed) (the elementwise generator) instead of the richer one.
  bool legacy = false;
  /// Print the program, its IR and every comparison's worst element to stdout.
  bool verbose = false;
  /// cpu mode: which plans' kernels NVRTC compiles for sm_90a (both compile to CUDA C++).
  enum class Nvrtc { None, Fused, All } nvrtc = Nvrtc::All;
};

/// Builds, runs and compares the program of `seed`. Never throws: every failure is an outcome.
Outcome checkProgram(uint64_t seed, const CheckOptions& options);

}  // namespace tgrandom
