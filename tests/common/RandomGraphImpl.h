//===- RandomGraphImpl.h - The random program generator's parts (internal) ===//
//
// Shared by RandomGraph.cpp (the program and its sensitivity analysis),
// RandomGraphElementwise.cpp (the elementwise steps of randomProgram(seed), and of the richer
// generator's menu), RandomGraphSteps.cpp (the other steps of the richer generator:
// reductions, softmax/layer_norm, matmuls, layout, casts, constants, graph breaks and checks),
// RandomGraphMatmul.cpp (matmuls and their epilogues), RandomGraphAttention.cpp (attention)
// and RandomGraphNoise.cpp (how far the GPU may differ from the reference for each op: the
// tolerance model). Public API only, like the rest of tests/common.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "RandomGraph.h"

#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace tgtest::detail {

using tg::DType;
using tg::Shape;
using tg::Tensor;

/// SplitMix64: a small generator whose output is the same with every standard library.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed * 0x9e3779b97f4a7c15ull + 0x243f6a8885a308d3ull) {}
  /// A generator whose stream shares nothing visible with seed + 1's: Rng(seed)'s stream is
  /// Rng(seed + 1)'s shifted by one draw (the state advances by the seed's multiplier), so
  /// programs of neighbouring seeds fall into step and repeat each other's later draws.
  static Rng scrambled(uint64_t seed) {
    Rng mix(seed ^ 0x6a09e667f3bcc909ull);
    return Rng(mix.next());
  }
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n).
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
  /// Uniform in [lo, hi].
  int range(int lo, int hi) { return lo + below(hi - lo + 1); }
  bool percent(int p) { return below(100) < p; }
  template <typename T>
  const T& pick(const std::vector<T>& v) { return v[below(static_cast<int>(v.size()))]; }

 private:
  uint64_t state_;
};

std::string shapeText(const Shape& s);
/// Extents that the tensor-core paths like (rows of 16 bytes and more; 130: a ragged edge
/// of a 64/128 tile) and odd ones that they do not.
const std::vector<int64_t>& friendlyExtents();
const std::vector<int64_t>& oddExtents();
std::string num(double v);
/// Numpy broadcasting of two shapes; throws std::logic_error when they do not broadcast.
Shape broadcastShapes(const Shape& a, const Shape& b);
bool broadcastable(const Shape& a, const Shape& b);
int mantissaBits(DType d);

//===----------------------------------------------------------------------===//
// The tolerance model (RandomGraphNoise.cpp)
//===----------------------------------------------------------------------===//

/// How far the GPU's value of a step may be from the reference's: rel * |value| + abs, plus,
/// for steps whose error depends on their operands (sums, matmuls, softmax, layer_norm), a
/// per-element field (Step::field).
struct Noise {
  double rel = 0;
  double abs = 0;
  bool any() const { return rel > 0 || abs > 0; }
};

/// One ulp of `d`, relative to the value (an upper bound); 0 for f32 (nothing rounds after).
double ulpRel(DType d);
/// The spacing of `d`'s subnormals (0 for f32): what a 16-bit rounding near zero may move a
/// value by, whatever ulpRel says (even a power-of-two scaling rounds there).
double subnormalStep(DType d);
/// The documented difference of one elementwise op (Precision::Auto) with a result of dtype
/// `d` on operands bounded by `x` (see RandomGraphNoise.cpp).
Noise opNoise(const std::string& op, DType d, double x);
/// The absolute error bound of a value in [-1, 1] (tanh, sigmoid) under `n`.
double unitAbs(const Noise& n);
/// exp on arguments bounded by `argBound` (exp's error grows with |x|); opNoise("exp") is the
/// bound for |x| <= 16.
double expRel(double argBound);

/// Per-element absolute noise of one step's result (row-major, one entry per element),
/// computed on the CPU from the program's reference values (all of them, by value index).
using NoiseField = std::function<std::vector<double>(const std::vector<Tensor>& values)>;

/// How far a step's result may move, per element, when each operand may move by its bound
/// `errors` (by value index; empty: exact): for steps that are not monotone in each operand
/// element (softmax, layer_norm, matmul), where evaluating the step at the corners of the
/// operands' boxes (RandomGraph.cpp) does not find the worst case.
using Propagation = std::function<std::vector<double>(const std::vector<Tensor>& values,
                                                      const std::vector<std::vector<double>>& errors)>;

/// Reduction `kind` ("sum", "mean", "max") of `x * scale` over `axes` (normalized, sorted):
/// the accumulation-order bound (derivation in RandomGraphNoise.cpp), per output element.
std::vector<double> reductionField(const std::string& kind, const Tensor& x, double scale,
                                   const std::vector<int64_t>& axes, const Tensor& result);
/// softmax(x, axis) decomposed as DecomposeComposites.cpp does, against the reference.
std::vector<double> softmaxField(const Tensor& x, int64_t axis, const Tensor& result);
/// layer_norm(x, weight?, bias?, eps) decomposed, against the reference.
std::vector<double> layerNormField(const Tensor& x, const Tensor* weight, const Tensor* bias,
                                   double eps, const Tensor& result);
/// matmul(a, b) as the GPU's paths compute it (f32: TF32 inputs), against the reference's f64.
/// `a` [..., M, K] and `b` [..., K, N] are the operands as matmul sees them (transposes done).
std::vector<double> matmulField(const Tensor& a, const Tensor& b, const Tensor& result);

// Worst-case moves of a result when its operands move by per-element bounds (RandomGraphNoise.cpp).
/// softmax along `axis` of x, x moving by ex.
std::vector<double> softmaxPropagation(const Tensor& x, const std::vector<double>& ex, int64_t axis,
                                       const Tensor& result);
/// layer_norm of x (moving by ex) with optional weight/bias (moving by ew/eb; null: none).
std::vector<double> layerNormPropagation(const Tensor& x, const std::vector<double>& ex,
                                         const Tensor* w, const std::vector<double>* ew,
                                         const Tensor* b, const std::vector<double>* eb, double eps);
/// matmul of a [..., M, K] (moving by ea) and b [..., K, N] (moving by eb): |C' - C| <=
/// ea @ |b| + |a| @ eb + ea @ eb.
std::vector<double> matmulPropagation(const Tensor& a, const std::vector<double>& ea,
                                      const Tensor& b, const std::vector<double>& eb);
/// The number of sequential f32 additions an output of a reduction of `n` elements goes
/// through on the GPU, at most (templates/reduction.cuh).
double accumulationDepth(int64_t n);

//===----------------------------------------------------------------------===//
// Program values and steps
//===----------------------------------------------------------------------===//

using StepFn = std::function<Tensor(const std::vector<Tensor>&)>;

/// One value of the program: an input (input >= 0: the program's input of that index) or a
/// step computing it from earlier values.
struct Step {
  StepFn fn;
  Noise noise;
  NoiseField field;
  int input = -1;
  /// Seeds the random signs of this step's perturbations.
  uint64_t signSeed = 0;
  /// The values fn reads (distinct, in order).
  std::vector<int> operands;
  /// How operand errors move the result; empty: evaluate fn at the operands' corners.
  Propagation propagate;
  bool inexact() const { return noise.any() || static_cast<bool>(field); }
};

/// Every value of the program on `in`, by value index. With `lastUse` (per value: the last
/// step that reads it, or a large number for results), a value is released after its last
/// use: under tg::jit every tensor the lambda still holds becomes a segment result at a graph
/// break, so holding all of them would defeat fusion.
std::vector<Tensor> evaluateSteps(const std::vector<Step>& steps, const std::vector<Tensor>& in,
                                  const std::vector<int>* lastUse = nullptr);

/// randomProgram(seed)'s sensitivity analysis (RandomProgram::sensitivity) of the values
/// `outputs` to the noise of every inexact step, by probing: each step's value moved by its
/// noise with `patterns` sign patterns (2 uniform, then random pairs), the program run on.
std::vector<std::vector<double>> sensitivityOf(const std::vector<Step>& steps,
                                               const std::vector<int>& outputs,
                                               const std::vector<Tensor>& in, int patterns);

/// The richer generator's sensitivity analysis: a per-element bound on how far every value may
/// move, propagated forward step by step (RandomGraph.cpp explains how).
std::vector<std::vector<double>> errorBoundsOf(const std::vector<Step>& steps,
                                               const std::vector<int>& outputs,
                                               const std::vector<Tensor>& in);

struct Value {
  Shape shape;
  double bound;          // |every element| <= bound on randn inputs; above 64: retired (rescaled)
  bool tainted = false;  // depends on a step the GPU may compute differently (Noise)
  DType dtype = DType::F32;
  bool input = false;
  bool hidden = false;   // an attention step's intermediate: no later step reads it, no result
};

/// Builds one program. randomProgram(seed, large) uses only the elementwise steps, in the
/// order and with the random draws they always had (existing tests depend on the programs);
/// the options of the richer generator add the other step kinds.
class Generator {
 public:
  Generator(uint64_t seed, bool large) : rng_(seed), seed_(seed), large_(large) {}
  Generator(uint64_t seed, const RandomProgramOptions& options)
      : rng_(Rng::scrambled(seed)), seed_(seed), large_(false), rich_(true), options_(options) {}

  RandomProgram build();

 private:
  // RandomGraph.cpp: shapes, inputs, operands, the step loop and the elementwise steps.
  void chooseBaseShape();
  void chooseInputs();
  /// The base shape, or (with `percent` % chance) with leading dims dropped and some dims 1:
  /// a shape that broadcasts to the base.
  Shape sideShape(int percent);
  std::string name(int v) const;
  int operand();
  /// A second operand for a binary step with `a`: any value in randomProgram(seed); in the
  /// richer generator one of a's dtype whose shape broadcasts with a's (-1: none).
  int partner(int a);
  int add(StepFn fn, Shape shape, double bound, const std::string& text, Noise noise = {},
          NoiseField field = {});
  /// A new input of `shape` and `dtype` (the richer generator; -1 when there are 8 already).
  int newInput(const Shape& shape, DType dtype);
  void noteDType(DType d);
  void step();
  bool elementwiseStep(int r);
  void rescaleLast(double limit);
  bool unary();
  /// A unary op of `a` (-1: of an operand picked here).
  bool unaryOf(int a);
  Noise powTanhNoise(DType d, double ba) const;
  bool binary();
  bool binaryOf(int a, int b);
  bool scalar();
  bool scalarOf(int a);
  bool select();
  static Noise castBack(Noise n, DType other, DType back);
  bool cast();
  bool broadcast();
  bool layout();

  // RandomGraphSteps.cpp: the richer generator's steps.
  void chooseRichShape();
  void chooseRichInputs();
  bool richStep();
  /// A recent-biased value satisfying `ok` (-1: none); counts as an operand of the next step.
  int operandWhere(const std::function<bool(int)>& ok);
  bool reduce();
  bool reduceBack(int a, int r, const std::vector<int64_t>& axes, const std::string& kind);
  bool softmax();
  bool layerNorm();
  /// A tensor of `shape` and `dtype` for a weight/bias: a new input, else a small dense
  /// constant, else -1. Returns the value index and sets `constant`.
  int affineOperand(const Shape& shape, DType dtype, std::vector<float>* constant);
  bool matmul();
  void epilogue(int mm);
  // RandomGraphAttention.cpp: softmax(modify(q @ k^T)) @ v with a random score modifier.
  bool attention();
  bool permuteOrReshape();
  bool dtypeCast();
  bool constant();
  bool itemScale();
  bool hostVector();
  bool branch();
  bool check();
  /// Fresh values for a dense constant: multiples of 1/8 in [-1, 1] without 0 (exact in every
  /// dtype).
  std::vector<float> denseValues(int64_t n);

  Rng rng_;
  uint64_t seed_;
  bool large_;
  bool rich_ = false;
  RandomProgramOptions options_;
  DType dtype_ = DType::F32;
  DType lowest_ = DType::F32;
  Shape base_;
  size_t numInputs_ = 0;
  std::vector<Value> values_;
  std::vector<int> uses_;  // per value: how many steps read it
  std::vector<int> attentionResults_;  // results of attention steps: outputs unless read
  std::vector<int> lastUse_;  // per value: the last step (value index) that reads it
  std::vector<Step> steps_;   // per value
  std::vector<int> pending_;         // operands of the step being built
  bool exact_ = false;               // the step being built never rounds
  DType castVia_ = DType::F32;       // the step being built also rounds to this dtype
  Propagation propagate_;            // the step being built propagates errors so
  bool outSet_ = false;              // the step being built has result dtype out_
  DType out_ = DType::F32;
  int stepsDone_ = 0;
  std::vector<std::string> features_;
  bool composites_ = false, breaks_ = false, matmuls_ = false, checks_ = false;
  bool breakProgram_ = false, checkProgram_ = false;  // may this program break / check
  /// Undoes the last operand pick (a step that found no use for it).
  void unpick();
  std::ostringstream body_;

  void feature(const std::string& f);
};

}  // namespace tgtest::detail
