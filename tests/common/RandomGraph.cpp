//===- RandomGraph.cpp - Seeded random elementwise programs ---------------===//
#include "RandomGraph.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace tgtest {

namespace {

using tg::DType;
using tg::Shape;
using tg::Tensor;

/// SplitMix64: a small generator whose output is the same with every standard library.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed * 0x9e3779b97f4a7c15ull + 0x243f6a8885a308d3ull) {}
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

std::string shapeText(const Shape& s) { return tg::format_shape(s); }

std::string num(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

/// Numpy broadcasting of two shapes (the generator only combines shapes that broadcast).
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

using StepFn = std::function<Tensor(const std::vector<Tensor>&)>;

/// How far the GPU's value of a step may be from the reference's: rel * |value| + abs.
struct Noise {
  double rel = 0;
  double abs = 0;
  bool any() const { return rel > 0 || abs > 0; }
};

/// One ulp of `d`, relative to the value (an upper bound); 0 for f32 (nothing rounds after).
double ulpRel(DType d) { return d == DType::F32 ? 0 : std::ldexp(1.0, -(mantissaBits(d) - 1)); }

/// The documented difference between the GPU (Precision::Auto, tg/Support/Precision.h) and the
/// reference (RefKernels.h) for one op whose result has dtype `d`, on operands bounded by `x`:
/// the f32 function's error, plus one ulp of `d` for a 16-bit result: the reference rounds
/// after every op, a fused kernel keeps intermediates in f32. f32 ops computed exactly on both
/// sides (IEEE +, -, *, sqrt, 1 / sqrt) carry no noise.
Noise opNoise(const std::string& op, DType d, double x) {
  const double accurate = 4 * std::ldexp(1.0, -23);  // CUDA's accurate functions vs libm
  const bool approx = d == DType::BF16;               // Auto: approximations for bf16 results
  const double geluAbs = 2.5e-7 * std::max(1.0, x);    // 0.5 x (1 + f(x)): cancellation, x < 0
  Noise n;
  n.rel = ulpRel(d);
  // Auto: exp, sigmoid and division use ex2/rcp/div.full for every dtype; tanh, log and pow
  // only for bf16 results.
  const double cheap = std::ldexp(1.0, -20);  // ex2.approx + the rounding of x * log2(e); rcp
  if (op == "exp") {
    n.rel += cheap;
  } else if (op == "log") {
    n.rel += accurate;
    if (approx) n.abs = std::ldexp(1.0, -21);  // __logf: 2^-21.41 absolute in [0.5, 2]
  } else if (op == "tanh") {
    n.rel += approx ? std::exp2(-10.9) : accurate;  // tanh.approx: 2^-10.987 relative
  } else if (op == "sigmoid") {
    n.rel += cheap;  // rcp.approx(1 + ex2.approx(-x log2 e)): relative for every x
  } else if (op == "gelu_erf") {
    n.rel += accurate;
    n.abs = geluAbs;
  } else if (op == "gelu_tanh") {
    n.rel += approx ? 2 * cheap : accurate;  // bf16: x * sigmoid(2u), relative
    n.abs = geluAbs;                         // the reference's own cancellation
  } else if (op == "pow") {
    n.rel += approx ? std::ldexp(1.0, -16) : accurate;  // __powf: exp2(y * log2(x)), approximate
  } else if (op == "div") {
    n.rel += 3 * std::ldexp(1.0, -23);  // div.full: 2 ulp
  } else if (op == "rsqrt") {
    if (approx) n.rel += std::ldexp(1.0, -22);  // rsqrt.approx: 2^-22.9 relative
  }
  // Every other op is exact in f32 on both sides. A 16-bit result still differs by the
  // reference's rounding after the op, which a fused kernel skips (it keeps f32).
  if (d == DType::F32 && !n.any()) return {};
  return n;
}

/// The absolute error bound of a value in [-1, 1] (tanh, sigmoid) under `n`.
double unitAbs(const Noise& n) { return n.rel + n.abs; }

struct Step {
  StepFn fn;
  Noise noise;
};

/// Sign patterns of the sensitivity analysis: every element up, every element down, then
/// seeded random signs per element and their mirrors.
constexpr int kSignPatterns = 2 + 2 * 6;

/// `v` moved by `n` with the signs of `pattern` (the value is rounded back to its dtype).
Tensor perturb(const Tensor& v, const Noise& n, int pattern, uint64_t seed) {
  std::vector<float> x = v.to_vector<float>();
  Rng rng(seed * 64 + static_cast<uint64_t>(pattern / 2));
  for (float& e : x) {
    double sign = pattern % 2 ? -1.0 : 1.0;
    if (pattern >= 2 && (rng.next() & 1)) sign = -sign;
    e = static_cast<float>(e + sign * (n.rel * std::fabs(e) + n.abs));
  }
  return tg::from_vector(x, v.shape(), v.dtype(), v.device());
}

struct Value {
  Shape shape;
  double bound;          // |every element| <= bound on randn inputs; above 64: retired (rescaled)
  bool tainted = false;  // depends on a step the GPU may compute differently (Noise)
};

class Generator {
 public:
  Generator(uint64_t seed, bool large) : rng_(seed), seed_(seed), large_(large) {}

  RandomProgram build() {
    static const std::vector<DType> dtypes = {DType::F32, DType::BF16, DType::F16};
    dtype_ = rng_.pick(dtypes);
    lowest_ = dtype_;
    chooseBaseShape();
    chooseInputs();

    const int numSteps = rng_.range(3, 25);
    for (int s = 0; s < numSteps; ++s) step();

    // Outputs: the last value, plus up to two others: first values nothing reads (so that
    // less of the program is dead), then any computed value (one that later steps also
    // read: the middle of a diamond is then also a result).
    const int last = static_cast<int>(values_.size()) - 1;
    std::vector<int> outputs = {last};
    const int wanted = rng_.range(1, 3);
    const int firstComputed = static_cast<int>(numInputs_);
    std::vector<int> sinks;
    for (int v = firstComputed; v < last; ++v)
      if (uses_[v] == 0) sinks.push_back(v);
    for (int tries = 0; static_cast<int>(outputs.size()) < wanted && tries < 20; ++tries) {
      int v = !sinks.empty() && rng_.percent(70) ? rng_.pick(sinks)
                                                 : rng_.range(firstComputed, last);
      if (std::find(outputs.begin(), outputs.end(), v) == outputs.end()) outputs.push_back(v);
    }

    RandomProgram p;
    for (size_t i = 0; i < numInputs_; ++i) p.inputs.push_back({values_[i].shape, dtype_});
    p.dtype = dtype_;
    p.lowestPrecision = lowest_;
    p.baseShape = base_;
    p.numOutputs = outputs.size();
    p.numSteps = numSteps;

    std::ostringstream os;
    os << "random program: seed " << seed_ << (large_ ? " (large)" : "") << ", dtype "
       << tg::dtype_name(dtype_) << ", base shape " << shapeText(base_) << ", " << numSteps
       << " steps\n";
    for (size_t i = 0; i < numInputs_; ++i)
      os << "  " << name(static_cast<int>(i)) << ": input " << tg::dtype_name(dtype_)
         << shapeText(values_[i].shape) << "\n";
    os << body_.str();
    os << "  return";
    for (size_t i = 0; i < outputs.size(); ++i) os << (i ? ", " : " ") << name(outputs[i]);
    os << "\n";
    p.description = os.str();

    for (const Step& st : steps_) p.inexact = p.inexact || st.noise.any();
    auto steps = std::make_shared<const std::vector<Step>>(std::move(steps_));
    const size_t numInputs = numInputs_;
    // Every value of the program: the inputs, then one per step.
    auto values = [steps, numInputs](const std::vector<Tensor>& in) {
      if (in.size() != numInputs)
        throw std::invalid_argument("random program: expected " + std::to_string(numInputs) +
                                    " inputs, got " + std::to_string(in.size()));
      std::vector<Tensor> vals(in.begin(), in.end());
      vals.reserve(in.size() + steps->size());
      for (const Step& st : *steps) vals.push_back(st.fn(vals));
      return vals;
    };
    p.fn = [values, outputs](const std::vector<Tensor>& in) {
      std::vector<Tensor> vals = values(in);
      std::vector<Tensor> out;
      for (int o : outputs) out.push_back(vals[o]);
      return out;
    };
    p.sensitivity = [values, steps, outputs, numInputs](const std::vector<Tensor>& in) {
      const std::vector<Tensor> ref = values(in);
      std::vector<std::vector<float>> refOut;
      for (int o : outputs) refOut.push_back(ref[o].to_vector<float>());
      auto zeros = [&] {
        std::vector<std::vector<double>> z;
        for (const std::vector<float>& r : refOut) z.emplace_back(r.size(), 0.0);
        return z;
      };
      // Runs the steps from `first` on with the steps in `moved` perturbed by `pattern`, and
      // raises `worst` to how far each output element moved.
      auto probe = [&](size_t first, const std::vector<size_t>& moved, int pattern,
                       std::vector<std::vector<double>>& worst) {
        std::vector<Tensor> vals(ref.begin(), ref.begin() + static_cast<std::ptrdiff_t>(numInputs + first));
        for (size_t k = first; k < steps->size(); ++k) {
          const Step& st = (*steps)[k];
          Tensor v = k == first && moved.size() == 1 ? ref[numInputs + k] : st.fn(vals);
          if (std::find(moved.begin(), moved.end(), k) != moved.end())
            v = perturb(v, st.noise, pattern, 0x5eed0000ull + k);
          vals.push_back(std::move(v));
        }
        for (size_t o = 0; o < outputs.size(); ++o) {
          if (static_cast<size_t>(outputs[o]) < numInputs + first) continue;  // not affected
          std::vector<float> got = vals[outputs[o]].to_vector<float>();
          for (size_t i = 0; i < got.size(); ++i)
            worst[o][i] = std::max(worst[o][i], std::fabs(static_cast<double>(got[i]) - refOut[o][i]));
        }
      };
      // Each inexact step alone (both uniform directions, and random signs per element, which
      // find what uniform moves cancel, e.g. a value combined with its own transpose), summed.
      std::vector<std::vector<double>> total = zeros();
      std::vector<size_t> inexact;
      for (size_t k = 0; k < steps->size(); ++k) {
        if (!(*steps)[k].noise.any()) continue;
        inexact.push_back(k);
        std::vector<std::vector<double>> worst = zeros();
        for (int pattern = 0; pattern < kSignPatterns; ++pattern) probe(k, {k}, pattern, worst);
        for (size_t o = 0; o < outputs.size(); ++o)
          for (size_t i = 0; i < worst[o].size(); ++i) total[o][i] += worst[o][i];
      }
      // All of them at once: at a kink (min/max/select of two values that move together) the
      // joint move exceeds the sum of the separate ones.
      if (!inexact.empty()) {
        std::vector<std::vector<double>> joint = zeros();
        for (int pattern = 0; pattern < kSignPatterns; ++pattern) probe(0, inexact, pattern, joint);
        for (size_t o = 0; o < outputs.size(); ++o)
          for (size_t i = 0; i < joint[o].size(); ++i) total[o][i] = std::max(total[o][i], joint[o][i]);
      }
      return total;
    };
    return p;
  }

 private:
  void chooseBaseShape() {
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

  void chooseInputs() {
    numInputs_ = static_cast<size_t>(rng_.range(1, 4));
    values_.push_back({base_, 9.0});  // x0 has the base shape; randn never exceeds 8.6
    uses_.push_back(0);
    for (size_t i = 1; i < numInputs_; ++i) {
      Shape s = base_;
      if (rng_.percent(45)) {
        // Drop leading dims, then set some of the remaining dims to 1.
        size_t drop = static_cast<size_t>(rng_.below(static_cast<int>(s.size())));
        s.erase(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(drop));
        for (int64_t& d : s)
          if (rng_.percent(35)) d = 1;
      }
      values_.push_back({s, 9.0});
      uses_.push_back(0);
    }
  }

  std::string name(int v) const {
    return (v < static_cast<int>(numInputs_) ? "x" : "v") + std::to_string(v);
  }

  /// An earlier value: often one of the last three (chains), else any (diamonds).
  int operand() {
    const int n = static_cast<int>(values_.size());
    int v;
    do {
      v = n > 3 && rng_.percent(55) ? rng_.range(n - 3, n - 1) : rng_.below(n);
    } while (values_[v].bound > 64);  // retired: its rescaled copy is used instead
    ++uses_[v];
    pending_.push_back(v);
    return v;
  }

  /// Appends a step reading the operands picked since the last step. `shape` is taken by
  /// value: callers pass shapes that live in values_. `noise` is the step's own difference
  /// between GPU and reference; a step that reads a tainted value and rounds to a 16-bit
  /// dtype may also round the other way (one ulp more), unless it is marked exact_ (it never
  /// rounds: neg, abs, max, min, select, broadcast, transpose, power-of-two scaling).
  int add(StepFn fn, Shape shape, double bound, const std::string& text, Noise noise = {}) {
    bool taintedIn = false;
    for (int v : pending_) taintedIn = taintedIn || values_[v].tainted;
    // The reference rounds every 16-bit result; a fused kernel keeps f32 until it stores. So a
    // step with a 16-bit result may differ by one ulp even on exact inputs.
    DType roundsTo = mantissaBits(castVia_) < mantissaBits(dtype_) ? castVia_ : dtype_;
    if (!exact_ && (taintedIn || roundsTo != DType::F32)) noise.rel += ulpRel(roundsTo);
    pending_.clear();
    exact_ = false;
    castVia_ = DType::F32;
    values_.push_back({shape, bound, taintedIn || noise.any()});
    uses_.push_back(0);
    steps_.push_back({std::move(fn), noise});
    const int v = static_cast<int>(values_.size()) - 1;
    body_ << "  " << name(v) << " = " << text << "    // " << shapeText(shape)
          << ", |" << name(v) << "| <= " << num(bound);
    if (noise.any())
      body_ << ", GPU may differ by " << num(noise.rel) << " |" << name(v) << "| + " << num(noise.abs);
    body_ << "\n";
    return v;
  }

  void noteDType(DType d) {
    if (mantissaBits(d) < mantissaBits(lowest_)) lowest_ = d;
  }

  /// One random step (plus a rescale when the result's bound grew past 64).
  void step() {
    bool done = false;
    while (!done) {
      const int r = rng_.below(100);
      if (r < 28) done = unary();
      else if (r < 52) done = binary();
      else if (r < 68) done = scalar();
      else if (r < 80) done = select();
      else if (r < 89) done = cast();
      else if (r < 94) done = broadcast();
      else done = layout();
    }
    const int last = static_cast<int>(values_.size()) - 1;
    const double bound = values_[last].bound;
    if (bound > 64) {
      const int k = static_cast<int>(std::ceil(std::log2(bound / 8)));
      const double factor = std::ldexp(1.0, -k);  // a power of two: exact in every dtype
      ++uses_[last];
      pending_.push_back(last);
      exact_ = true;
      add([last, factor](const std::vector<Tensor>& v) { return v[last] * factor; },
          values_[last].shape, bound * factor, name(last) + " * 2^-" + std::to_string(k));
    }
  }

  struct UnaryDef {
    const char* text;  // with "a" for the operand
    Tensor (*fn)(const Tensor&);
    double (*bound)(double);
    Noise (*noise)(DType, double operandBound);
  };

  static const std::vector<UnaryDef>& unaryDefs() {
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
         [](DType d, double b) { return opNoise("log", d, b + 0.5); }},
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
  static std::string subst(const std::string& text, const std::string& a) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
      auto letter = [&](size_t j) { return std::isalpha(static_cast<unsigned char>(text[j])) != 0; };
      bool alone = (i == 0 || !letter(i - 1)) && (i + 1 == text.size() || !letter(i + 1));
      if (alone && text[i] == 'a') out += a;
      else out += text[i];
    }
    return out;
  }

  bool unary() {
    const UnaryDef& d = rng_.pick(unaryDefs());
    const int a = operand();
    auto fn = d.fn;
    const std::string t = d.text;
    exact_ = t == "neg(a)" || t == "abs(a)" || t == "relu(a)";
    add([a, fn](const std::vector<Tensor>& v) { return fn(v[a]); }, values_[a].shape,
        d.bound(values_[a].bound), subst(d.text, name(a)), d.noise(dtype_, values_[a].bound));
    return true;
  }

  /// pow(abs(a) + 0.5, tanh(b)): tanh's error moves the result by |ln(base)| times it.
  Noise powTanhNoise(double ba) const {
    Noise n = opNoise("pow", dtype_, ba);
    n.rel += std::max(std::log(2.0), std::log(ba + 0.5)) * (unitAbs(opNoise("tanh", dtype_, 9)) + ulpRel(dtype_));
    return n;
  }

  bool binary() {
    const int a = operand(), b = operand();
    const Shape shape = broadcastShapes(values_[a].shape, values_[b].shape);
    const double ba = values_[a].bound, bb = values_[b].bound;
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
            2 * ba, name(a) + " / (abs(" + name(b) + ") + 0.5)", opNoise("div", dtype_, ba));
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
            "pow(abs(" + name(a) + ") + 0.5, tanh(" + name(b) + "))", powTanhNoise(ba));
        break;
    }
    return true;
  }

  bool scalar() {
    // Exact in bf16 and f16.
    static const std::vector<double> constants = {0.5, 1.5, 2.0, -0.75, 3.0, 0.25, -1.25};
    static const std::vector<double> exponents = {0.5, 1.5, 2.0, -0.5, -1.0, 0.75};
    const int a = operand();
    const Shape& shape = values_[a].shape;
    const double ba = values_[a].bound;
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
            n + " / " + cs, opNoise("div", dtype_, ba));
        break;
      case 5:
        add([a, c](const std::vector<Tensor>& v) { return tg::Scalar(c) / (tg::abs(v[a]) + 0.5); },
            shape, 2 * std::fabs(c), cs + " / (abs(" + n + ") + 0.5)", opNoise("div", dtype_, ba));
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
            "pow(abs(" + n + ") + 0.5, " + num(e) + ")", opNoise("pow", dtype_, ba));
        break;
      }
    }
    return true;
  }

  /// compare + where, always in a form that is continuous in its operands.
  bool select() {
    const int a = operand(), b = operand();
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
        exact_ = true;  // a power-of-two slope
        add([a, s](const std::vector<Tensor>& v) { return tg::where(v[a] > 0.0, v[a], v[a] * s); },
            values_[a].shape, ba * std::max(1.0, std::fabs(s)),
            "where(" + na + " > 0, " + na + ", " + na + " * " + num(s) + ")");
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
  static Noise castBack(Noise n, DType other, DType back) {
    if (mantissaBits(back) < mantissaBits(other)) n.rel += ulpRel(back);
    return n;
  }

  /// A round trip through another float dtype, sometimes computing there.
  bool cast() {
    std::vector<DType> others;
    for (DType d : {DType::F32, DType::BF16, DType::F16})
      if (d != dtype_) others.push_back(d);
    const DType other = rng_.pick(others);
    const DType back = dtype_;
    noteDType(other);
    const int a = operand();
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
      case 2:
        add([a, other, back](const std::vector<Tensor>& v) {
              return tg::cast(tg::cast(v[a], other) * 1.5 + 0.25, back);
            },
            values_[a].shape, values_[a].bound * 1.5 + 0.25,
            "cast(cast(" + n + ", " + on + ") * 1.5 + 0.25, " + bn + ")");
        break;
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
  bool broadcast() {
    std::vector<int> narrower;
    for (int i = 0; i < static_cast<int>(values_.size()); ++i)
      if (values_[i].shape != base_ && values_[i].bound <= 64) narrower.push_back(i);
    if (narrower.empty()) return false;
    const int a = rng_.pick(narrower);
    ++uses_[a];
    pending_.push_back(a);
    const Shape base = base_;
    if (rng_.percent(50)) {
      exact_ = true;
      add([a, base](const std::vector<Tensor>& v) { return tg::broadcast_to(v[a], base); }, base,
          values_[a].bound, "broadcast_to(" + name(a) + ", " + shapeText(base) + ")");
    } else {
      // exp of the narrow value, then broadcast: a computed value read through a broadcast.
      const int b = operand();
      const Shape shape = broadcastShapes(base, values_[b].shape);
      Noise n;
      n.rel = ulpRel(dtype_);  // the product's rounding
      n.abs = values_[b].bound * unitAbs(opNoise("tanh", dtype_, values_[a].bound));
      add([a, b, base](const std::vector<Tensor>& v) {
            return tg::broadcast_to(tg::tanh(v[a]), base) * v[b];
          },
          shape, values_[b].bound,
          "broadcast_to(tanh(" + name(a) + "), " + shapeText(base) + ") * " + name(b), n);
    }
    return true;
  }

  /// A reshape round trip (a linear chain) or a transpose of two equal extents.
  bool layout() {
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

  Rng rng_;
  uint64_t seed_;
  bool large_;
  DType dtype_ = DType::F32;
  DType lowest_ = DType::F32;
  Shape base_;
  size_t numInputs_ = 0;
  std::vector<Value> values_;
  std::vector<int> uses_;  // per value: how many steps read it
  std::vector<Step> steps_;
  std::vector<int> pending_;         // operands of the step being built
  bool exact_ = false;               // the step being built never rounds
  DType castVia_ = DType::F32;       // the step being built also rounds to this dtype
  std::ostringstream body_;
};

}  // namespace

RandomProgram randomProgram(uint64_t seed, bool large) { return Generator(seed, large).build(); }

std::vector<tg::Tensor> randomInputs(const RandomProgram& program, uint64_t seed,
                                     tg::Device device) {
  std::vector<tg::Tensor> out;
  for (size_t i = 0; i < program.inputs.size(); ++i)
    out.push_back(tg::randn(program.inputs[i].shape, program.inputs[i].dtype,
                            seed * 1000003ull + i * 7919ull + 1, device));
  return out;
}

}  // namespace tgtest
