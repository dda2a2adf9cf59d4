//===- RandomGraphElementwise.cpp - The elementwise steps of random programs ===//
//
// Unary and binary ops (with broadcasting partners), scalars, where/select, casts to another
// float dtype and back, broadcasts and layout round trips: the steps randomProgram(seed)
// uses, and the elementwise part of the richer generator's menu (RandomGraphSteps.cpp).
// Each keeps values finite in every dtype and records its bound and its GPU noise.
//
//===----------------------------------------------------------------------===//
#include "RandomGraphImpl.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace tgtest::detail {


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

}  // namespace tgtest::detail
