//===- RandomGraph.cpp - Seeded random programs: build, sensitivity, elementwise steps ===//
#include "RandomGraphImpl.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace tgtest {

namespace detail {

std::string shapeText(const Shape& s) { return tg::format_shape(s); }

std::string num(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

bool broadcastable(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return false;
  }
  return true;
}

Shape broadcastShapes(const Shape& a, const Shape& b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) throw std::logic_error("random program: shapes do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int mantissaBits(DType d) { return d == DType::F32 ? 24 : d == DType::F16 ? 11 : 8; }

//===----------------------------------------------------------------------===//
// Evaluation and the sensitivity analysis
//===----------------------------------------------------------------------===//

/// `v` moved by `n` (and the per-element `field`, when given) with the signs of `pattern`
/// (the value is rounded back to its dtype). Sign patterns: every element up, every element
/// down, then seeded random signs per element and their mirrors.
static Tensor perturb(const Tensor& v, const Noise& n, const std::vector<double>& field,
                      int pattern, uint64_t seed) {
  std::vector<float> x = v.to_vector<float>();
  Rng rng(seed * 64 + static_cast<uint64_t>(pattern / 2));
  for (size_t i = 0; i < x.size(); ++i) {
    float& e = x[i];
    double sign = pattern % 2 ? -1.0 : 1.0;
    if (pattern >= 2 && (rng.next() & 1)) sign = -sign;
    double move = n.rel * std::fabs(e) + n.abs;
    if (!field.empty()) {
      move += field[i];
      // A move below the dtype's smallest step would be lost in the rounding back, while the
      // GPU's value may well be one step away (a subnormal, or a value of a 16-bit dtype near
      // zero): move at least by that step.
      if (move > 0 && v.dtype() != DType::F32)
        move = std::max(move, std::ldexp(1.0, v.dtype() == DType::F16 ? -24 : -133));
    }
    e = static_cast<float>(e + sign * move);
  }
  return tg::from_vector(x, v.shape(), v.dtype(), v.device());
}

std::vector<Tensor> evaluateSteps(const std::vector<Step>& steps, const std::vector<Tensor>& in,
                                  const std::vector<int>* lastUse) {
  std::vector<Tensor> vals;
  vals.reserve(steps.size());
  for (size_t k = 0; k < steps.size(); ++k) {
    const Step& st = steps[k];
    vals.push_back(st.input >= 0 ? in.at(static_cast<size_t>(st.input)) : st.fn(vals));
    if (lastUse)
      for (size_t v = 0; v < k; ++v)
        if ((*lastUse)[v] == static_cast<int>(k)) vals[v] = Tensor();
  }
  return vals;
}

std::vector<std::vector<double>> sensitivityOf(const std::vector<Step>& steps,
                                               const std::vector<int>& outputs,
                                               const std::vector<Tensor>& in, int patterns) {
  const std::vector<Tensor> ref = evaluateSteps(steps, in);
  std::vector<std::vector<float>> refOut;
  for (int o : outputs) refOut.push_back(ref[o].to_vector<float>());
  auto zeros = [&] {
    std::vector<std::vector<double>> z;
    for (const std::vector<float>& r : refOut) z.emplace_back(r.size(), 0.0);
    return z;
  };
  // The per-element noise of each inexact step, from the reference values.
  std::vector<std::vector<double>> fields(steps.size());
  std::vector<size_t> inexact;
  for (size_t k = 0; k < steps.size(); ++k) {
    if (!steps[k].inexact()) continue;
    inexact.push_back(k);
    if (steps[k].field) {
      fields[k] = steps[k].field(ref);
      if (static_cast<int64_t>(fields[k].size()) != ref[k].numel())
        throw std::logic_error("random program: a noise field has " +
                               std::to_string(fields[k].size()) + " elements for a value of " +
                               std::to_string(ref[k].numel()));
    }
  }
  // Runs the steps from `first` on with the steps in `moved` perturbed by `pattern`, and
  // raises `worst` to how far each output element moved.
  auto probe = [&](size_t first, const std::vector<size_t>& moved, int pattern,
                   std::vector<std::vector<double>>& worst) {
    std::vector<Tensor> vals(ref.begin(), ref.begin() + static_cast<std::ptrdiff_t>(first));
    for (size_t k = first; k < steps.size(); ++k) {
      const Step& st = steps[k];
      Tensor v = st.input >= 0 || (k == first && moved.size() == 1) ? ref[k] : st.fn(vals);
      if (std::find(moved.begin(), moved.end(), k) != moved.end())
        v = perturb(v, st.noise, fields[k], pattern, st.signSeed);
      vals.push_back(std::move(v));
    }
    for (size_t o = 0; o < outputs.size(); ++o) {
      if (static_cast<size_t>(outputs[o]) < first) continue;  // not affected
      std::vector<float> got = vals[outputs[o]].to_vector<float>();
      for (size_t i = 0; i < got.size(); ++i)
        worst[o][i] = std::max(worst[o][i], std::fabs(static_cast<double>(got[i]) - refOut[o][i]));
    }
  };
  // Each inexact step alone (both uniform directions, and random signs per element, which
  // find what uniform moves cancel, e.g. a value combined with its own transpose), summed.
  std::vector<std::vector<double>> total = zeros();
  for (size_t k : inexact) {
    std::vector<std::vector<double>> worst = zeros();
    for (int pattern = 0; pattern < patterns; ++pattern) probe(k, {k}, pattern, worst);
    for (size_t o = 0; o < outputs.size(); ++o)
      for (size_t i = 0; i < worst[o].size(); ++i) total[o][i] += worst[o][i];
  }
  // All of them at once: at a kink (min/max/select of two values that move together) the
  // joint move exceeds the sum of the separate ones.
  if (!inexact.empty()) {
    std::vector<std::vector<double>> joint = zeros();
    for (int pattern = 0; pattern < patterns; ++pattern) probe(inexact.front(), inexact, pattern, joint);
    for (size_t o = 0; o < outputs.size(); ++o)
      for (size_t i = 0; i < joint[o].size(); ++i) total[o][i] = std::max(total[o][i], joint[o][i]);
  }
  return total;
}

/// The richer generator's sensitivity analysis. Every value v gets a bound E_v[i] on how far
/// its element i may be from the reference on the GPU: 0 for inputs; for a step, its own noise
/// (rel |v_i| + abs + field_i; RandomGraphNoise.cpp) plus how far its operands' bounds can move
/// it. For a step that is monotone in each element of each operand (every elementwise op the
/// generator writes, layouts, sum/mean/max, the host scalars of item() and to_vector(), the
/// branch on an exact condition) that is the largest change of its value over the 2^m corners
/// of its m moving operands: each operand moved up, or down, by its bound at every element, the
/// step evaluated in f32 (so that no move is lost to a 16-bit rounding; a move below one f32
/// ulp counts as one ulp). For softmax, layer_norm and matmul, which are not monotone in each
/// operand element, the step's Propagation bounds it. A forward, first-order worst case: unlike
/// the random sign patterns of sensitivityOf() it cannot miss an adverse combination of signs
/// (two competing inputs of a softmax moving apart, say).
std::vector<std::vector<double>> errorBoundsOf(const std::vector<Step>& steps,
                                               const std::vector<int>& outputs,
                                               const std::vector<Tensor>& in) {
  const std::vector<Tensor> ref = evaluateSteps(steps, in);
  std::vector<std::vector<double>> errors(steps.size());  // empty: exact
  std::vector<Tensor> ref32(steps.size());
  auto asF32 = [&](int v) -> const Tensor& {
    if (!ref32[v].defined()) ref32[v] = ref[v].dtype() == DType::F32 ? ref[v] : tg::cast(ref[v], DType::F32);
    return ref32[v];
  };
  for (size_t k = 0; k < steps.size(); ++k) {
    const Step& st = steps[k];
    if (st.input >= 0) continue;
    const size_t n = static_cast<size_t>(ref[k].numel());
    std::vector<double> e(n, 0.0);
    std::vector<int> moving;
    for (int u : st.operands)
      if (!errors[u].empty()) moving.push_back(u);
    if (!moving.empty() && st.propagate) {
      e = st.propagate(ref, errors);
    } else if (!moving.empty()) {
      std::vector<Tensor> vals = ref;
      for (int u : st.operands) vals[u] = asF32(u);
      const std::vector<float> base = st.fn(vals).to_vector<float>();
      // The corners of the moving operands' boxes (with more than 4, only all up and all down).
      const int m = static_cast<int>(moving.size());
      std::vector<uint32_t> masks;
      if (m <= 4) {
        for (uint32_t mask = 0; mask < (1u << m); ++mask) masks.push_back(mask);
      } else {
        masks = {0u, ~0u};
      }
      for (uint32_t mask : masks) {
        for (int j = 0; j < m; ++j) {
          const int u = moving[j];
          std::vector<float> x = asF32(u).to_vector<float>();
          const double sign = (mask >> j) & 1 ? 1.0 : -1.0;
          for (size_t i = 0; i < x.size(); ++i)
            if (errors[u][i] > 0) {
              const double ulp = std::ldexp(1.0, std::ilogb(std::max(std::fabs(x[i]), 1e-30f)) - 23);
              x[i] = static_cast<float>(x[i] + sign * std::max(errors[u][i], ulp));
            }
          vals[u] = tg::from_vector(x, ref[u].shape(), DType::F32, ref[u].device());
        }
        const std::vector<float> moved = st.fn(vals).to_vector<float>();
        for (size_t i = 0; i < n; ++i) e[i] = std::max(e[i], std::fabs(static_cast<double>(moved[i]) - base[i]));
      }
    }
    // The step's own noise.
    const bool own = st.inexact();
    if (own) {
      const std::vector<float> v = ref[k].to_vector<float>();
      const std::vector<double> field = st.field ? st.field(ref) : std::vector<double>();
      if (st.field && field.size() != n)
        throw std::logic_error("random program: a noise field has " + std::to_string(field.size()) +
                               " elements for a value of " + std::to_string(n));
      // A 16-bit rounding is at least one subnormal step, whatever the relative bound says:
      // also where the reference's value is 0, which for an inexact step may be an underflow
      // of a value the GPU keeps in f32 (sigmoid(-20) in f16; GPU fuzz seed 6316).
      const double floor = subnormalStep(ref[k].dtype());
      for (size_t i = 0; i < n; ++i) {
        double o = st.noise.rel * std::fabs(v[i]) + st.noise.abs + (st.field ? field[i] : 0.0);
        if (o > 0 || st.noise.rel > 0) o = std::max(o, floor);
        e[i] += o;
      }
    }
    if (own || !moving.empty()) errors[k] = std::move(e);
  }
  std::vector<std::vector<double>> out;
  for (int o : outputs)
    out.push_back(errors[o].empty() ? std::vector<double>(static_cast<size_t>(ref[o].numel()), 0.0) : errors[o]);
  return out;
}

//===----------------------------------------------------------------------===//
// The program
//===----------------------------------------------------------------------===//

/// Sign patterns of randomProgram(seed)'s sensitivity analysis.
constexpr int kSignPatterns = 2 + 2 * 6;

RandomProgram Generator::build() {
  static const std::vector<DType> dtypes = {DType::F32, DType::BF16, DType::F16};
  dtype_ = rng_.pick(dtypes);
  lowest_ = dtype_;
  if (rich_) {
    chooseRichShape();
    chooseRichInputs();
  } else {
    chooseBaseShape();
    chooseInputs();
  }

  const int numSteps = rich_ ? rng_.range(options_.minSteps, options_.maxSteps) : rng_.range(3, 25);
  for (stepsDone_ = 0; stepsDone_ < numSteps; ++stepsDone_) step();

  // Outputs: the last value, plus up to two others: first values nothing reads (so that
  // less of the program is dead), then any computed value (one that later steps also
  // read: the middle of a diamond is then also a result).
  const int last = static_cast<int>(values_.size()) - 1;
  std::vector<int> outputs = {last};
  const int wanted = rng_.range(1, 3);
  const int firstComputed = static_cast<int>(numInputs_);
  std::vector<int> sinks;
  for (int v = firstComputed; v < last; ++v)
    if (uses_[v] == 0 && !values_[v].input) sinks.push_back(v);
  for (int tries = 0; static_cast<int>(outputs.size()) < wanted && tries < 20; ++tries) {
    int v = !sinks.empty() && rng_.percent(70) ? rng_.pick(sinks)
                                               : rng_.range(firstComputed, last);
    if (values_[v].input) continue;
    if (std::find(outputs.begin(), outputs.end(), v) == outputs.end()) outputs.push_back(v);
  }

  RandomProgram p;
  for (const Value& v : values_)
    if (v.input) p.inputs.push_back({v.shape, v.dtype});
  p.dtype = dtype_;
  p.lowestPrecision = lowest_;
  p.baseShape = base_;
  p.numOutputs = outputs.size();
  p.numSteps = numSteps;
  p.graphBreaks = breaks_;
  p.composites = composites_;
  p.matmuls = matmuls_;
  p.checks = checks_;
  p.features = features_;

  std::ostringstream os;
  os << "random program: seed " << seed_ << (large_ ? " (large)" : rich_ ? " (rich)" : "")
     << ", dtype " << tg::dtype_name(dtype_) << ", base shape " << shapeText(base_) << ", "
     << numSteps << " steps\n";
  if (!rich_)  // the richer generator lists inputs where they are made
    for (size_t i = 0; i < numInputs_; ++i)
      os << "  " << name(static_cast<int>(i)) << ": input " << tg::dtype_name(dtype_)
         << shapeText(values_[i].shape) << "\n";
  os << body_.str();
  os << "  return";
  for (size_t i = 0; i < outputs.size(); ++i) os << (i ? ", " : " ") << name(outputs[i]);
  os << "\n";
  p.description = os.str();

  for (const Step& st : steps_) p.inexact = p.inexact || st.inexact();
  for (int o : outputs) lastUse_[o] = std::numeric_limits<int>::max();
  auto steps = std::make_shared<const std::vector<Step>>(std::move(steps_));
  auto lastUse = std::make_shared<const std::vector<int>>(std::move(lastUse_));
  const size_t numInputs = p.inputs.size();
  p.fn = [steps, lastUse, outputs, numInputs](const std::vector<Tensor>& in) {
    if (in.size() != numInputs)
      throw std::invalid_argument("random program: expected " + std::to_string(numInputs) +
                                  " inputs, got " + std::to_string(in.size()));
    std::vector<Tensor> vals = evaluateSteps(*steps, in, lastUse.get());
    std::vector<Tensor> out;
    for (int o : outputs) out.push_back(vals[o]);
    return out;
  };
  const bool rich = rich_;
  p.sensitivity = [steps, outputs, numInputs, rich](const std::vector<Tensor>& in) {
    if (in.size() != numInputs)
      throw std::invalid_argument("random program: expected " + std::to_string(numInputs) +
                                  " inputs, got " + std::to_string(in.size()));
    return rich ? errorBoundsOf(*steps, outputs, in) : sensitivityOf(*steps, outputs, in, kSignPatterns);
  };
  return p;
}

void Generator::chooseBaseShape() {
  if (large_) {
    // One extent of 1000003 (prime: no vector width divides it), rank 1 or 2.
    switch (rng_.below(3)) {
      case 0: base_ = {1000003}; break;
      case 1: base_ = {2, 1000003}; break;
      default: base_ = {1000003, 1}; break;
    }
    return;
  }
  const int rank = rng_.range(1, 3);
  base_.clear();
  for (int d = 0; d < rank; ++d) base_.push_back(rng_.percent(15) ? 1 : rng_.range(1, 33));
  // Sometimes two equal extents, so that a transpose keeps the shape.
  if (rank >= 2 && rng_.percent(30)) base_[rank - 1] = base_[rng_.below(rank - 1)];
}

void Generator::chooseInputs() {
  numInputs_ = static_cast<size_t>(rng_.range(1, 4));
  auto input = [&](Shape s) {
    values_.push_back({std::move(s), 9.0});  // randn never exceeds 8.6
    values_.back().dtype = dtype_;
    values_.back().input = true;
    uses_.push_back(0);
    lastUse_.push_back(-1);
    Step st;
    st.input = static_cast<int>(values_.size()) - 1;
    steps_.push_back(std::move(st));
  };
  input(base_);  // x0 has the base shape
  for (size_t i = 1; i < numInputs_; ++i) input(sideShape(45));
}

Shape Generator::sideShape(int percent) {
  Shape s = base_;
  if (rng_.percent(percent)) {
    // Drop leading dims, then set some of the remaining dims to 1.
    size_t drop = static_cast<size_t>(rng_.below(static_cast<int>(s.size())));
    s.erase(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(drop));
    for (int64_t& d : s)
      if (rng_.percent(35)) d = 1;
  }
  return s;
}

int Generator::newInput(const Shape& shape, DType dtype) {
  if (numInputs_ >= 8) return -1;
  const int v = static_cast<int>(values_.size());
  values_.push_back({shape, 9.0});
  values_.back().dtype = dtype;
  values_.back().input = true;
  uses_.push_back(0);
  lastUse_.push_back(-1);
  Step st;
  st.input = static_cast<int>(numInputs_++);
  steps_.push_back(std::move(st));
  noteDType(dtype);
  body_ << "  " << name(v) << " = input " << (numInputs_ - 1) << ": " << tg::dtype_name(dtype)
        << shapeText(shape) << "\n";
  return v;
}

std::string Generator::name(int v) const {
  return (values_[v].input ? "x" : "v") + std::to_string(v);
}

/// An earlier value: often one of the last three (chains), else any (diamonds).
int Generator::operand() {
  const int n = static_cast<int>(values_.size());
  int v;
  do {
    v = n > 3 && rng_.percent(55) ? rng_.range(n - 3, n - 1) : rng_.below(n);
  } while (values_[v].bound > 64);  // retired: its rescaled copy is used instead
  ++uses_[v];
  pending_.push_back(v);
  return v;
}

int Generator::operandWhere(const std::function<bool(int)>& ok) {
  std::vector<int> candidates;
  for (int v = 0; v < static_cast<int>(values_.size()); ++v)
    if (values_[v].bound <= 64 && ok(v)) candidates.push_back(v);
  if (candidates.empty()) return -1;
  const int n = static_cast<int>(candidates.size());
  const int v = n > 3 && rng_.percent(55) ? candidates[rng_.range(n - 3, n - 1)] : rng_.pick(candidates);
  ++uses_[v];
  pending_.push_back(v);
  return v;
}

int Generator::partner(int a) {
  if (!rich_) return operand();
  const Value& va = values_[a];
  return operandWhere([&](int v) {
    const Value& x = values_[v];
    if (v == a || x.dtype != va.dtype || !broadcastable(x.shape, va.shape)) return false;
    return tg::shape_numel(broadcastShapes(x.shape, va.shape)) <= options_.maxElements;
  });
}

/// Appends a step reading the operands picked since the last step. `shape` is taken by
/// value: callers pass shapes that live in values_. `noise` is the step's own difference
/// between GPU and reference; a step that reads a tainted value and rounds to a 16-bit
/// dtype may also round the other way (one ulp more), unless it is marked exact_ (it never
/// rounds: neg, abs, max, min, select, broadcast, transpose, power-of-two scaling).
int Generator::add(StepFn fn, Shape shape, double bound, const std::string& text, Noise noise,
                   NoiseField field) {
  bool taintedIn = false;
  for (int v : pending_) taintedIn = taintedIn || values_[v].tainted;
  // The result's dtype: that of the first operand unless the step says otherwise.
  const DType out = outSet_ ? out_ : pending_.empty() ? dtype_ : values_[pending_[0]].dtype;
  // The reference rounds every 16-bit result; a fused kernel keeps f32 until it stores. So a
  // step with a 16-bit result may differ by one ulp even on exact inputs.
  DType roundsTo = mantissaBits(castVia_) < mantissaBits(out) ? castVia_ : out;
  if (!exact_ && (taintedIn || roundsTo != DType::F32)) noise.rel += ulpRel(roundsTo);
  const int v = static_cast<int>(values_.size());
  std::vector<int> operands;
  for (int u : pending_) {
    lastUse_[u] = v;
    if (std::find(operands.begin(), operands.end(), u) == operands.end()) operands.push_back(u);
  }
  pending_.clear();
  exact_ = false;
  castVia_ = DType::F32;
  outSet_ = false;
  const bool inexact = noise.any() || static_cast<bool>(field);
  values_.push_back({shape, bound, taintedIn || inexact});
  values_.back().dtype = out;
  noteDType(out);
  uses_.push_back(0);
  lastUse_.push_back(-1);
  Step st;
  st.fn = std::move(fn);
  st.noise = noise;
  st.field = std::move(field);
  int computed = 0;
  for (const Step& s : steps_) computed += s.input < 0;
  st.signSeed = 0x5eed0000ull + static_cast<uint64_t>(computed);
  st.operands = std::move(operands);
  st.propagate = std::move(propagate_);
  propagate_ = {};
  steps_.push_back(std::move(st));
  body_ << "  " << name(v) << " = " << text << "    // " << (out != dtype_ ? tg::dtype_name(out) : "")
        << shapeText(shape) << ", |" << name(v) << "| <= " << num(bound);
  if (noise.any())
    body_ << ", GPU may differ by " << num(noise.rel) << " |" << name(v) << "| + " << num(noise.abs);
  if (steps_.back().field) body_ << (noise.any() ? " + " : ", GPU may differ by ") << "a modelled field";
  body_ << "\n";
  return v;
}

void Generator::noteDType(DType d) {
  if (mantissaBits(d) < mantissaBits(lowest_)) lowest_ = d;
}

void Generator::feature(const std::string& f) {
  if (std::find(features_.begin(), features_.end(), f) == features_.end()) features_.push_back(f);
}

/// One random step (plus a rescale when the result's bound grew past 64).
void Generator::step() {
  bool done = false;
  while (!done) done = rich_ ? richStep() : elementwiseStep(rng_.below(100));
  rescaleLast(64);
}

bool Generator::elementwiseStep(int r) {
  if (r < 28) return unary();
  if (r < 52) return binary();
  if (r < 68) return scalar();
  if (r < 80) return select();
  if (r < 89) return cast();
  if (r < 94) return broadcast();
  return layout();
}

/// When the last value's bound exceeds `limit`, a power-of-two rescale (exact in every dtype)
/// to at most 8.
void Generator::rescaleLast(double limit) {
  const int last = static_cast<int>(values_.size()) - 1;
  const double bound = values_[last].bound;
  if (bound > limit) {
    const int k = static_cast<int>(std::ceil(std::log2(bound / 8)));
    const double factor = std::ldexp(1.0, -k);  // a power of two: exact in every dtype
    ++uses_[last];
    pending_.push_back(last);
    exact_ = true;
    // Exact, but in a 16-bit dtype's subnormal range the scaled value rounds (op by op; a
    // fused kernel keeps it in f32): the richer generator says so (randomProgram(seed)'s
    // tests compare like with like, fused with fused).
    Noise noise;
    if (rich_) noise.abs = subnormalStep(values_[last].dtype);
    add([last, factor](const std::vector<Tensor>& v) { return v[last] * factor; },
        values_[last].shape, bound * factor, name(last) + " * 2^-" + std::to_string(k), noise);
  }
}

//===----------------------------------------------------------------------===//
// Elementwise steps (randomProgram(seed) uses only these)
//===----------------------------------------------------------------------===//

namespace {

struct UnaryDef {
  const char* text;  // with "a" for the operand
  Tensor (*fn)(const Tensor&);
  double (*bound)(double);
  Noise (*noise)(DType, double operandBound);
};

const std::vector<UnaryDef>& unaryDefs() {
  static const std::vector<UnaryDef> defs = {
      {"neg(a)", [](const Tensor& a) { return tg::neg(a); }, [](double b) { return b; },
       [](DType, double) { return Noise{}; }},
      {"abs(a)", [](const Tensor& a) { return tg::abs(a); }, [](double b) { return b; },
       [](DType, double) { return Noise{}; }},
      {"exp(tanh(a) * 3)", [](const Tensor& a) { return tg::exp(tg::tanh(a) * 3.0); },
       [](double) { return 20.1; },
       [](DType d, double b) {
         // tanh's error and the rounding of tanh(a) * 3, magnified 3x by exp.
         Noise n = opNoise("exp", d, 3);
         n.rel += 3 * (unitAbs(opNoise("tanh", d, b)) + ulpRel(d));
         return n;
       }},
      {"log(abs(a) + 0.5)", [](const Tensor& a) { return tg::log(tg::abs(a) + 0.5); },
       [](double b) { return std::max(0.7, std::log(b + 0.5)); },
       [](DType d, double b) {
         // Op by op, abs(a) + 0.5 >= 0.5 rounds to d first (a fused kernel keeps f32): up to
         // one ulp relative, which log turns into as much absolute (log near 0 at 1).
         Noise n = opNoise("log", d, b + 0.5);
         n.abs += ulpRel(d);
         return n;
       }},
      {"tanh(a)", [](const Tensor& a) { return tg::tanh(a); }, [](double) { return 1.0; },
       [](DType d, double b) { return opNoise("tanh", d, b); }},
      {"sigmoid(a)", [](const Tensor& a) { return tg::sigmoid(a); }, [](double) { return 1.0; },
       [](DType d, double b) { return opNoise("sigmoid", d, b); }},
      {"relu(a)", [](const Tensor& a) { return tg::relu(a); }, [](double b) { return b; },
       [](DType, double) { return Noise{}; }},
      {"gelu(a, erf)", [](const Tensor& a) { return tg::gelu(a, tg::Gelu::Erf); },
       [](double b) { return std::max(b, 0.2); },
       [](DType d, double b) { return opNoise("gelu_erf", d, b); }},
      {"gelu(a, tanh)", [](const Tensor& a) { return tg::gelu(a, tg::Gelu::Tanh); },
       [](double b) { return std::max(b, 0.2); },
       [](DType d, double b) { return opNoise("gelu_tanh", d, b); }},
      {"sqrt(abs(a) + 0.5)", [](const Tensor& a) { return tg::sqrt(tg::abs(a) + 0.5); },
       [](double b) { return std::sqrt(b + 0.5); }, [](DType, double) { return Noise{}; }},
      {"rsqrt(abs(a) + 0.5)", [](const Tensor& a) { return tg::rsqrt(tg::abs(a) + 0.5); },
       [](double) { return 1.42; },
       [](DType d, double b) { return opNoise("rsqrt", d, b + 0.5); }},
  };
  return defs;
}

/// `text` with the operand placeholder "a" (standing alone, not inside a word) replaced.
std::string subst(const std::string& text, const std::string& a) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    auto letter = [&](size_t j) { return std::isalpha(static_cast<unsigned char>(text[j])) != 0; };
    bool alone = (i == 0 || !letter(i - 1)) && (i + 1 == text.size() || !letter(i + 1));
    if (alone && text[i] == 'a') out += a;
    else out += text[i];
  }
  return out;
}

}  // namespace

bool Generator::unary() { return unaryOf(-1); }

bool Generator::unaryOf(int a) {
  const UnaryDef& d = rng_.pick(unaryDefs());
  if (a < 0) {
    a = operand();
  } else {
    ++uses_[a];
    pending_.push_back(a);
  }
  auto fn = d.fn;
  const std::string t = d.text;
  exact_ = t == "neg(a)" || t == "abs(a)" || t == "relu(a)";
  add([a, fn](const std::vector<Tensor>& v) { return fn(v[a]); }, values_[a].shape,
      d.bound(values_[a].bound), subst(d.text, name(a)),
      d.noise(values_[a].dtype, values_[a].bound));
  return true;
}

/// pow(abs(a) + 0.5, tanh(b)): tanh's error moves the result by |ln(base)| times it.
Noise Generator::powTanhNoise(DType d, double ba) const {
  Noise n = opNoise("pow", d, ba);
  n.rel += std::max(std::log(2.0), std::log(ba + 0.5)) * (unitAbs(opNoise("tanh", d, 9)) + ulpRel(d));
  return n;
}

bool Generator::binary() {
  const int a = operand(), b = partner(a);
  if (b < 0) return scalarOf(a);
  return binaryOf(a, b);
}

bool Generator::binaryOf(int a, int b) {
  const Shape shape = broadcastShapes(values_[a].shape, values_[b].shape);
  const double ba = values_[a].bound, bb = values_[b].bound;
  const DType d = values_[a].dtype;
  switch (rng_.below(7)) {
    case 0:
      add([a, b](const std::vector<Tensor>& v) { return v[a] + v[b]; }, shape, ba + bb,
          name(a) + " + " + name(b));
      break;
    case 1:
      add([a, b](const std::vector<Tensor>& v) { return v[a] - v[b]; }, shape, ba + bb,
          name(a) + " - " + name(b));
      break;
    case 2:
      add([a, b](const std::vector<Tensor>& v) { return v[a] * v[b]; }, shape, ba * bb,
          name(a) + " * " + name(b));
      break;
    case 3:
      add([a, b](const std::vector<Tensor>& v) { return v[a] / (tg::abs(v[b]) + 0.5); }, shape,
          2 * ba, name(a) + " / (abs(" + name(b) + ") + 0.5)", opNoise("div", d, ba));
      break;
    case 4:
      exact_ = true;
      add([a, b](const std::vector<Tensor>& v) { return tg::maximum(v[a], v[b]); }, shape,
          std::max(ba, bb), "maximum(" + name(a) + ", " + name(b) + ")");
      break;
    case 5:
      exact_ = true;
      add([a, b](const std::vector<Tensor>& v) { return tg::minimum(v[a], v[b]); }, shape,
          std::max(ba, bb), "minimum(" + name(a) + ", " + name(b) + ")");
      break;
    default:
      add([a, b](const std::vector<Tensor>& v) {
            return tg::pow(tg::abs(v[a]) + 0.5, tg::tanh(v[b]));
          },
          shape, std::max(ba + 0.5, 2.0),
          "pow(abs(" + name(a) + ") + 0.5, tanh(" + name(b) + "))", powTanhNoise(d, ba));
      break;
  }
  return true;
}

bool Generator::scalar() { return scalarOf(operand()); }

bool Generator::scalarOf(int a) {
  // Exact in bf16 and f16.
  static const std::vector<double> constants = {0.5, 1.5, 2.0, -0.75, 3.0, 0.25, -1.25};
  static const std::vector<double> exponents = {0.5, 1.5, 2.0, -0.5, -1.0, 0.75};
  const Shape& shape = values_[a].shape;
  const double ba = values_[a].bound;
  const DType d = values_[a].dtype;
  const double c = rng_.pick(constants);
  const std::string n = name(a), cs = num(c);
  switch (rng_.below(9)) {
    case 0:
      add([a, c](const std::vector<Tensor>& v) { return v[a] + c; }, shape, ba + std::fabs(c),
          n + " + " + cs);
      break;
    case 1:
      add([a, c](const std::vector<Tensor>& v) { return v[a] - c; }, shape, ba + std::fabs(c),
          n + " - " + cs);
      break;
    case 2:
      add([a, c](const std::vector<Tensor>& v) { return tg::Scalar(c) - v[a]; }, shape,
          ba + std::fabs(c), cs + " - " + n);
      break;
    case 3:
      add([a, c](const std::vector<Tensor>& v) { return v[a] * c; }, shape, ba * std::fabs(c),
          n + " * " + cs);
      break;
    case 4:
      add([a, c](const std::vector<Tensor>& v) { return v[a] / c; }, shape, ba / std::fabs(c),
          n + " / " + cs, opNoise("div", d, ba));
      break;
    case 5:
      add([a, c](const std::vector<Tensor>& v) { return tg::Scalar(c) / (tg::abs(v[a]) + 0.5); },
          shape, 2 * std::fabs(c), cs + " / (abs(" + n + ") + 0.5)", opNoise("div", d, ba));
      break;
    case 6:
      exact_ = true;
      add([a, c](const std::vector<Tensor>& v) { return tg::maximum(v[a], c); }, shape,
          std::max(ba, std::fabs(c)), "maximum(" + n + ", " + cs + ")");
      break;
    case 7:
      exact_ = true;
      add([a, c](const std::vector<Tensor>& v) { return tg::minimum(v[a], c); }, shape,
          std::max(ba, std::fabs(c)), "minimum(" + n + ", " + cs + ")");
      break;
    default: {
      const double e = rng_.pick(exponents);
      add([a, e](const std::vector<Tensor>& v) { return tg::pow(tg::abs(v[a]) + 0.5, e); },
          shape, e > 0 ? std::pow(ba + 0.5, e) : std::pow(2.0, -e),
          "pow(abs(" + n + ") + 0.5, " + num(e) + ")", opNoise("pow", d, ba));
      break;
    }
  }
  return true;
}

/// compare + where, always in a form that is continuous in its operands.
bool Generator::select() {
  const int a = operand(), b = partner(a);
  if (b < 0) return scalarOf(a);
  const Shape shape = broadcastShapes(values_[a].shape, values_[b].shape);
  const double ba = values_[a].bound, bb = values_[b].bound;
  const std::string na = name(a), nb = name(b);
  switch (rng_.below(6)) {
    case 0: {  // minimum or maximum through a comparison
      const int pred = rng_.below(4);
      static const char* names[] = {"lt", "le", "gt", "ge"};
      exact_ = true;
      add([a, b, pred](const std::vector<Tensor>& v) {
            Tensor c = pred == 0 ? tg::lt(v[a], v[b])
                       : pred == 1 ? tg::le(v[a], v[b])
                       : pred == 2 ? tg::gt(v[a], v[b])
                                   : tg::ge(v[a], v[b]);
            return tg::where(c, v[a], v[b]);
          },
          shape, std::max(ba, bb),
          std::string("where(") + names[pred] + "(" + na + ", " + nb + "), " + na + ", " + nb + ")");
      break;
    }
    case 1: {  // |a - b|
      const bool strict = rng_.percent(50);
      add([a, b, strict](const std::vector<Tensor>& v) {
            Tensor c = strict ? tg::gt(v[a], v[b]) : tg::ge(v[a], v[b]);
            return tg::where(c, v[a] - v[b], v[b] - v[a]);
          },
          shape, ba + bb,
          std::string("where(") + (strict ? "gt" : "ge") + "(" + na + ", " + nb + "), " + na +
              " - " + nb + ", " + nb + " - " + na + ")");
      break;
    }
    case 2: {  // eq / ne: where(eq(a, b), a, b) is b, where(ne(a, b), a, b) is a
      const bool isEq = rng_.percent(50);
      exact_ = true;
      add([a, b, isEq](const std::vector<Tensor>& v) {
            Tensor c = isEq ? tg::eq(v[a], v[b]) : tg::ne(v[a], v[b]);
            return tg::where(c, v[a], v[b]);
          },
          shape, std::max(ba, bb),
          std::string("where(") + (isEq ? "eq" : "ne") + "(" + na + ", " + nb + "), " + na +
              ", " + nb + ")");
      break;
    }
    case 3: {  // leaky relu: where(a > 0, a, a * s)
      static const std::vector<double> slopes = {0.25, 0.5, -0.5};
      const double s = rng_.pick(slopes);
      exact_ = true;  // a power-of-two slope (rounding only in a 16-bit subnormal range)
      Noise noise;
      if (rich_) noise.abs = subnormalStep(values_[a].dtype);
      add([a, s](const std::vector<Tensor>& v) { return tg::where(v[a] > 0.0, v[a], v[a] * s); },
          values_[a].shape, ba * std::max(1.0, std::fabs(s)),
          "where(" + na + " > 0, " + na + ", " + na + " * " + num(s) + ")", noise);
      break;
    }
    case 4: {  // clamp from below: where(a < c, c, a)
      const double c = rng_.percent(50) ? -0.5 : 0.75;
      exact_ = true;
      add([a, c](const std::vector<Tensor>& v) { return tg::where(v[a] < c, c, v[a]); },
          values_[a].shape, std::max(ba, std::fabs(c)),
          "where(" + na + " < " + num(c) + ", " + num(c) + ", " + na + ")");
      break;
    }
    default: {  // clamp from above: where(a > c, c... written as where(a <= c, a, c)
      const double c = rng_.percent(50) ? 1.5 : -0.25;
      exact_ = true;
      add([a, c](const std::vector<Tensor>& v) { return tg::where(v[a] <= c, v[a], c); },
          values_[a].shape, std::max(ba, std::fabs(c)),
          "where(" + na + " <= " + num(c) + ", " + na + ", " + num(c) + ")");
      break;
    }
  }
  return true;
}

/// The noise of a value computed in `other` and cast to `back` (one more rounding when
/// `back` is the less precise).
Noise Generator::castBack(Noise n, DType other, DType back) {
  if (mantissaBits(back) < mantissaBits(other)) n.rel += ulpRel(back);
  return n;
}

/// A round trip through another float dtype, sometimes computing there.
bool Generator::cast() {
  // randomProgram(seed) picks the other dtype before the operand (every value has the
  // program's dtype); the richer generator needs the operand's dtype first.
  int a = rich_ ? operand() : -1;
  const DType back = rich_ ? values_[a].dtype : dtype_;
  std::vector<DType> others;
  for (DType d : {DType::F32, DType::BF16, DType::F16})
    if (d != back) others.push_back(d);
  const DType other = rng_.pick(others);
  noteDType(other);
  if (!rich_) a = operand();
  castVia_ = other;
  const std::string n = name(a), on = tg::dtype_name(other), bn = tg::dtype_name(back);
  switch (rng_.below(4)) {
    case 0:
      add([a, other, back](const std::vector<Tensor>& v) {
            return tg::cast(tg::cast(v[a], other), back);
          },
          values_[a].shape, values_[a].bound,
          "cast(cast(" + n + ", " + on + "), " + bn + ")");
      break;
    case 1:
      add([a, other, back](const std::vector<Tensor>& v) {
            return tg::cast(tg::tanh(tg::cast(v[a], other)), back);
          },
          values_[a].shape, 1.0, "cast(tanh(cast(" + n + ", " + on + ")), " + bn + ")",
          castBack(opNoise("tanh", other, values_[a].bound), other, back));
      break;
    case 2: {
      // Op by op, the product rounds to `other` before the sum (a fused kernel keeps f32):
      // up to one ulp of |1.5 a|, which the sum may leave next to a small result.
      NoiseField field;
      if (mantissaBits(other) < 24)
        field = [a, other](const std::vector<Tensor>& v) {
          std::vector<float> x = v[a].to_vector<float>();
          std::vector<double> f(x.size());
          for (size_t i = 0; i < x.size(); ++i) f[i] = ulpRel(other) * 1.5 * std::fabs(x[i]);
          return f;
        };
      add([a, other, back](const std::vector<Tensor>& v) {
            return tg::cast(tg::cast(v[a], other) * 1.5 + 0.25, back);
          },
          values_[a].shape, values_[a].bound * 1.5 + 0.25,
          "cast(cast(" + n + ", " + on + ") * 1.5 + 0.25, " + bn + ")", {}, std::move(field));
      break;
    }
    default:
      add([a, other, back](const std::vector<Tensor>& v) {
            return tg::cast(tg::sigmoid(tg::cast(v[a], other)), back);
          },
          values_[a].shape, 1.0, "cast(sigmoid(cast(" + n + ", " + on + ")), " + bn + ")",
          castBack(opNoise("sigmoid", other, values_[a].bound), other, back));
      break;
  }
  return true;
}

/// An explicit broadcast of a lower-rank (or 1-extent) value to the base shape, combined
/// with a full-shape value.
bool Generator::broadcast() {
  std::vector<int> narrower;
  for (int i = 0; i < static_cast<int>(values_.size()); ++i)
    if (values_[i].shape != base_ && values_[i].bound <= 64 &&
        (!rich_ || (broadcastable(values_[i].shape, base_) &&
                    values_[i].shape.size() <= base_.size() &&
                    broadcastShapes(values_[i].shape, base_) == base_)))
      narrower.push_back(i);
  if (narrower.empty()) return false;
  const int a = rng_.pick(narrower);
  ++uses_[a];
  pending_.push_back(a);
  const Shape base = base_;
  const DType d = values_[a].dtype;
  if (rng_.percent(50)) {
    exact_ = true;
    add([a, base](const std::vector<Tensor>& v) { return tg::broadcast_to(v[a], base); }, base,
        values_[a].bound, "broadcast_to(" + name(a) + ", " + shapeText(base) + ")");
  } else {
    // exp of the narrow value, then broadcast: a computed value read through a broadcast.
    const int b = rich_ ? operandWhere([&](int v) {
                            return values_[v].dtype == d && broadcastable(values_[v].shape, base) &&
                                   tg::shape_numel(broadcastShapes(values_[v].shape, base)) <=
                                       options_.maxElements;
                          })
                        : operand();
    if (b < 0) {
      pending_.clear();
      --uses_[a];
      return false;
    }
    const Shape shape = broadcastShapes(base, values_[b].shape);
    Noise n;
    n.rel = ulpRel(d);  // the product's rounding
    // tanh's error times |b|: with b's bound (randomProgram(seed)), or per element.
    const double tanhAbs = unitAbs(opNoise("tanh", d, values_[a].bound));
    NoiseField field;
    if (rich_)
      field = [b, base, tanhAbs](const std::vector<Tensor>& v) {
        std::vector<float> x = tg::broadcast_to(v[b], broadcastShapes(base, v[b].shape())).to_vector<float>();
        std::vector<double> f(x.size());
        for (size_t i = 0; i < x.size(); ++i) f[i] = tanhAbs * std::fabs(x[i]);
        return f;
      };
    else
      n.abs = values_[b].bound * tanhAbs;
    add([a, b, base](const std::vector<Tensor>& v) {
          return tg::broadcast_to(tg::tanh(v[a]), base) * v[b];
        },
        shape, values_[b].bound,
        "broadcast_to(tanh(" + name(a) + "), " + shapeText(base) + ") * " + name(b), n, std::move(field));
  }
  return true;
}

/// A reshape round trip (a linear chain) or a transpose of two equal extents.
bool Generator::layout() {
  const int a = operand();
  const Shape shape = values_[a].shape;
  std::vector<std::pair<int64_t, int64_t>> swaps;
  for (size_t i = 0; i < shape.size(); ++i)
    for (size_t j = i + 1; j < shape.size(); ++j)
      if (shape[i] == shape[j] && shape[i] > 1) swaps.push_back({int64_t(i), int64_t(j)});
  if (!swaps.empty() && rng_.percent(70)) {
    auto [d0, d1] = rng_.pick(swaps);
    exact_ = true;
    add([a, d0, d1](const std::vector<Tensor>& v) { return tg::transpose(v[a], d0, d1); },
        shape, values_[a].bound,
        "transpose(" + name(a) + ", " + std::to_string(d0) + ", " + std::to_string(d1) + ")");
  } else {
    add([a, shape](const std::vector<Tensor>& v) {
          return tg::reshape(tg::reshape(v[a], {-1}) + 0.5, shape);
        },
        shape, values_[a].bound + 0.5,
        "reshape(reshape(" + name(a) + ", [-1]) + 0.5, " + shapeText(shape) + ")");
  }
  return true;
}

}  // namespace detail

RandomProgram randomProgram(uint64_t seed, bool large) {
  return detail::Generator(seed, large).build();
}

RandomProgram randomProgram(uint64_t seed, const RandomProgramOptions& options) {
  return detail::Generator(seed, options).build();
}

std::vector<tg::Tensor> randomInputs(const RandomProgram& program, uint64_t seed,
                                     tg::Device device) {
  std::vector<tg::Tensor> out;
  for (size_t i = 0; i < program.inputs.size(); ++i)
    out.push_back(tg::randn(program.inputs[i].shape, program.inputs[i].dtype,
                            seed * 1000003ull + i * 7919ull + 1, device));
  return out;
}

}  // namespace tgtest
