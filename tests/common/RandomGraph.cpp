//===- RandomGraph.cpp - Seeded random programs: the build and the sensitivity analysis ===//
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
  // An attention result nothing reads would be dead code: it is a result (up to three).
  for (int v : attentionResults_)
    if (uses_[v] == 0 && outputs.size() < 3 && std::find(outputs.begin(), outputs.end(), v) == outputs.end())
      outputs.push_back(v);
  const int firstComputed = static_cast<int>(numInputs_);
  std::vector<int> sinks;
  for (int v = firstComputed; v < last; ++v)
    if (uses_[v] == 0 && !values_[v].input && !values_[v].hidden) sinks.push_back(v);
  for (int tries = 0; static_cast<int>(outputs.size()) < wanted && tries < 20; ++tries) {
    int v = !sinks.empty() && rng_.percent(70) ? rng_.pick(sinks)
                                               : rng_.range(firstComputed, last);
    if (values_[v].input || values_[v].hidden) continue;
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
  std::string n(1, values_[v].input ? 'x' : 'v');  // (not "x" + ...: GCC 12 warns wrongly of overlapping copies)
  return n += std::to_string(v);
}

/// An earlier value: often one of the last three (chains), else any (diamonds).
int Generator::operand() {
  const int n = static_cast<int>(values_.size());
  int v;
  do {
    v = n > 3 && rng_.percent(55) ? rng_.range(n - 3, n - 1) : rng_.below(n);
  } while (values_[v].bound > 64 || values_[v].hidden);  // retired: its rescaled copy is used instead
  ++uses_[v];
  pending_.push_back(v);
  return v;
}

int Generator::operandWhere(const std::function<bool(int)>& ok) {
  std::vector<int> candidates;
  for (int v = 0; v < static_cast<int>(values_.size()); ++v)
    if (values_[v].bound <= 64 && !values_[v].hidden && ok(v)) candidates.push_back(v);
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
