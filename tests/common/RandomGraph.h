//===- RandomGraph.h - Seeded random elementwise programs for differential tests ===//
//
// randomProgram(seed) builds a small elementwise program over tg's public API: a dtype (f32,
// bf16 or f16), a base shape (rank 1..3, extents 1..33; with `large`, one extent of 1000003),
// 1..4 inputs whose shapes broadcast to the base, 3..25 steps drawn from unary ops, binary ops,
// tensor-scalar ops, compare + where, casts to another float dtype and back, explicit
// broadcasts of lower-rank values and layout round trips, and 1..3 outputs. Operands are
// picked among all earlier values, so values are often used twice (diamonds).
//
// Every step keeps its operands in a safe domain (log/sqrt/rsqrt of abs(x) + 0.5, exp of
// tanh(x) * 3, division by abs(y) + 0.5, pow of abs(x) + 0.5 to a small exponent), and the
// generator tracks a bound on every value's magnitude, rescaling by a power of two (exact)
// when it grows past 64: values stay finite in every dtype (f16 included) on randn inputs.
// Every compare + where is a continuous function of its operands (max/min/|a - b|/leaky
// relu/clamp written with where), so a last-bit difference in an operand cannot flip an
// output by a large amount: GPU results can be compared with the CPU with a tolerance.
//
// The same seed gives the same program on every machine (the generator uses its own integer
// arithmetic, not <random>'s distributions).
//
// randomProgram(seed, options) is the richer generator of the random-program driver
// (tests/random): on top of those steps, reductions over any axes (keepdims or not) with
// consumers that broadcast the result back, softmax and layer_norm, matmuls (rank 2 and
// batched, transposed operands, tensor-core and odd shapes) with epilogues, attention
// (softmax(modify(q @ k^T)) @ v with soft caps, ALiBi, bias inputs and masks), any permutation,
// reshape and broadcast, casts between the float dtypes, splat and dense constants made inside
// the lambda, graph breaks (item(), to_vector(), operator bool) used so that results stay
// continuous, and tg::check. Each step's GPU error is modelled (RandomGraphNoise.cpp); the
// sensitivity analysis propagates it to the outputs.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <tg/tg.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tgtest {

using ProgramFn = std::function<std::vector<tg::Tensor>(const std::vector<tg::Tensor>&)>;

/// Which step kinds the richer generator may use (all by default) and how big it may get.
struct RandomProgramOptions {
  bool reductions = true;  ///< sum/max/mean over axis subsets, and broadcasts back
  bool composites = true;  ///< softmax, layer_norm
  bool matmuls = true;     ///< matmul with epilogues
  bool attention = true;   ///< softmax(modify(q @ k^T)) @ v: soft caps, ALiBi, biases, masks
  bool layouts = true;     ///< transposes of any permutation, reshapes, broadcast_to
  bool casts = true;       ///< values of another float dtype
  bool constants = true;   ///< tg::full and tg::from_vector inside the lambda
  bool breaks = true;      ///< item(), to_vector(), operator bool inside the lambda
  bool checks = true;      ///< tg::check with a condition that holds
  int minSteps = 3;
  int maxSteps = 20;
  int64_t maxElements = 50000;  ///< of any value
  int64_t maxMacs = 1 << 21;    ///< multiply-adds of one matmul
};

struct RandomProgram {
  std::vector<tg::TensorSpec> inputs;
  /// Runs the program on tensors (eagerly, or while tg::jit traces it).
  ProgramFn fn;
  /// The seed, the program's types and every step, one per line (print it on failure).
  std::string description;

  /// How much each output element (one vector per output, row-major) may move on the GPU,
  /// measured on the CPU. The richer generator (RandomProgramOptions) propagates a worst-case
  /// bound per element forward instead (RandomGraph.cpp, errorBoundsOf): each step's own noise
  /// (RandomGraphNoise.cpp) plus how far its operands' bounds can move it. randomProgram(seed):
  /// every step that the GPU may compute differently from the reference
  /// (transcendental functions; bf16 division and rsqrt, which use hardware approximations;
  /// and, downstream of those, roundings to a 16-bit dtype that may then go the other way)
  /// is moved by its documented error bound (tg/Support/Precision.h). Each such step alone,
  /// uniformly up and down and with seeded random signs per element (which find what uniform
  /// moves cancel, e.g. a value combined with its own transpose), the largest move summed
  /// over the steps; and all steps at once (a kink such as min(a, b) of two values that move
  /// together); the larger of the two. Steps computed exactly on both sides (+ - * / sqrt in
  /// f32, max/min, compare/select, casts, layout) are not moved. Cancellation magnifies
  /// last-bit differences; this measures by how much, per element: the tolerance of
  /// GPU-vs-CPU comparisons. Takes the CPU inputs.
  std::function<std::vector<std::vector<double>>(const std::vector<tg::Tensor>&)> sensitivity;
  /// True when some step may differ between GPU and reference; otherwise the GPU's results
  /// must equal the reference's bit for bit.
  bool inexact = false;

  // Facts for tests that choose tolerances.
  tg::DType dtype = tg::DType::F32;           ///< of x0 (randomProgram(seed): of every value)
  tg::DType lowestPrecision = tg::DType::F32; ///< least precise float dtype any value has
  tg::Shape baseShape;
  size_t numOutputs = 0;
  int numSteps = 0;

  // The richer generator's facts.
  /// The lambda reads tensors (item(), to_vector(), operator bool): it must run under tg::jit
  /// (graph segments), not trace_ir.
  bool graphBreaks = false;
  /// softmax/layer_norm: the pipeline decomposes them, so the interpreted fused/unfused
  /// modules are not bit-identical to the traced one (only within the tolerance).
  bool composites = false;
  bool matmuls = false;
  bool checks = false;
  /// The step kinds used ("sum", "matmul", "item", ...), for statistics.
  std::vector<std::string> features;
};

/// The program for `seed`. `large` allows an extent of 1000003 (a prime) in the base shape.
RandomProgram randomProgram(uint64_t seed, bool large = false);
/// The richer generator's program for `seed`.
RandomProgram randomProgram(uint64_t seed, const RandomProgramOptions& options);

/// Fresh inputs for `program` on `device`: tg::randn with seeds derived from `seed` (the same
/// values on every device).
std::vector<tg::Tensor> randomInputs(const RandomProgram& program, uint64_t seed,
                                     tg::Device device);

/// tg::jit(fn).trace_ir(specs...) for a function of 1..8 inputs and 1..3 outputs (trace_ir is
/// variadic and the lambda's result type fixes the number of outputs, so this dispatches on
/// both counts).
std::string traceIr(const std::vector<tg::TensorSpec>& specs, const ProgramFn& fn,
                    size_t numOutputs, const tg::JitOptions& options = {});
inline std::string traceIr(const RandomProgram& p) {
  return traceIr(p.inputs, p.fn, p.numOutputs);
}

/// A jit function of 1..8 inputs and 1..3 outputs, type-erased: the first call traces and
/// compiles, later calls with the same signature replay.
class JitProgram {
 public:
  JitProgram(ProgramFn fn, size_t numInputs, size_t numOutputs, tg::JitOptions options = {});
  std::vector<tg::Tensor> operator()(const std::vector<tg::Tensor>& inputs) const;
  std::string ir() const { return ir_(); }
  /// Kernels one run launches, over every compiled graph (segments of a broken program).
  size_t kernels() const;

 private:
  std::function<std::vector<tg::Tensor>(const std::vector<tg::Tensor>&)> call_;
  std::function<std::string()> ir_;
  std::function<tg::JitReport()> report_;
};

/// One call of a fresh jit function of `program` (trace, compile, run).
std::vector<tg::Tensor> runJit(const RandomProgram& program, const tg::JitOptions& options,
                               const std::vector<tg::Tensor>& inputs);

}  // namespace tgtest
