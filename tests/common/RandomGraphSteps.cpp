//===- RandomGraphSteps.cpp - The richer generator's steps ----------------===//
//
// Reductions over any axes (keepdims or not) and consumers that broadcast the result back,
// softmax, layer_norm with and without weight/bias (matmuls and their epilogues:
// RandomGraphMatmul.cpp), any permutation, reshapes and broadcasts, casts to another float dtype, splat and dense
// constants made inside the lambda, graph breaks (item(), to_vector(), operator bool) and
// tg::check. Every step keeps values finite in every dtype (bounds as in RandomGraph.cpp,
// powers of two before sums and matmuls) and every result continuous in the inputs.
//
//===----------------------------------------------------------------------===//
#include "RandomGraphImpl.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tgtest::detail {

namespace {

std::string listText(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

/// The dims `axes` (possibly negative, any order; empty: all) name in a tensor of `rank`.
std::vector<int64_t> normalizedAxes(const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<int64_t> out;
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d) out.push_back(d);
  for (int64_t a : axes) out.push_back(a < 0 ? a + rank : a);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

const std::vector<int64_t>& friendlyExtents() {
  static const std::vector<int64_t> v = {8, 16, 32, 48, 64, 96, 128, 130, 192, 256};
  return v;
}
const std::vector<int64_t>& oddExtents() {
  static const std::vector<int64_t> v = {1, 2, 3, 5, 7, 9, 13, 17, 31, 33};
  return v;
}

void Generator::unpick() {
  const int v = pending_.back();
  pending_.pop_back();
  --uses_[v];
}

std::vector<float> Generator::denseValues(int64_t n) {
  std::vector<float> c(static_cast<size_t>(n));
  for (float& x : c) {
    int k = rng_.range(0, 15);
    if (k >= 8) ++k;  // no zero
    x = static_cast<float>(k - 8) / 8.0f;
  }
  return c;
}

//===----------------------------------------------------------------------===//
// Shapes, inputs and the step menu
//===----------------------------------------------------------------------===//

void Generator::chooseRichShape() {
  const int r = rng_.below(100);
  const int rank = r < 15 ? 1 : r < 55 ? 2 : r < 85 ? 3 : 4;
  base_.clear();
  for (int d = 0; d < rank; ++d)
    base_.push_back(rng_.percent(50) ? rng_.pick(friendlyExtents()) : rng_.pick(oddExtents()));
  // Sometimes two equal extents, so that a transpose keeps the shape.
  if (rank >= 2 && rng_.percent(30)) base_[rank - 1] = base_[rng_.below(rank - 1)];
  while (tg::shape_numel(base_) > options_.maxElements) {
    auto largest = std::max_element(base_.begin(), base_.end());
    *largest = std::max<int64_t>(1, *largest / 2);
  }
  breakProgram_ = options_.breaks && rng_.percent(30);
  checkProgram_ = options_.checks && rng_.percent(25);
}

void Generator::chooseRichInputs() {
  newInput(base_, dtype_);
  const int more = rng_.range(0, 2);
  for (int i = 0; i < more; ++i) newInput(sideShape(50), dtype_);
}

bool Generator::richStep() {
  const int r = rng_.below(100);
  if (r < 38) return elementwiseStep(rng_.below(100));
  if (r < 50) return options_.reductions && reduce();
  if (r < 54) return options_.composites && softmax();
  if (r < 58) return options_.composites && layerNorm();
  if (r < 68) {
    if (options_.attention && rng_.percent(20)) return attention();
    return options_.matmuls && matmul();
  }
  if (r < 76) return options_.layouts && permuteOrReshape();
  if (r < 80) return options_.casts && dtypeCast();
  if (r < 86) return options_.constants && constant();
  if (r < 96) {
    if (!breakProgram_) return false;
    switch (rng_.below(3)) {
      case 0: return itemScale();
      case 1: return hostVector();
      default: return branch();
    }
  }
  return checkProgram_ && check();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// sum/mean/max over a random axis subset (all of them, listed or as {}; negative entries;
/// any order), keepdims or not; then often a consumer that broadcasts the result back over
/// its operand (x - mean(x), exp(x - max(x)), ...).
bool Generator::reduce() {
  const int a = operand();
  const Value va = values_[a];
  const int64_t rank = static_cast<int64_t>(va.shape.size());
  if (rank == 0) {
    unpick();
    return false;
  }
  const int kr = rng_.below(100);
  const std::string kind = kr < 35 ? "sum" : kr < 75 ? "mean" : "max";
  std::vector<int64_t> axes;
  const int mode = rng_.below(10);
  if (mode >= 2) {
    for (int64_t d = 0; d < rank; ++d)
      if (mode == 2 || rng_.percent(50)) axes.push_back(d);
    if (axes.empty()) axes.push_back(rng_.below(static_cast<int>(rank)));
    for (int64_t& x : axes)
      if (rng_.percent(40)) x -= rank;
    for (size_t i = axes.size(); i > 1; --i) std::swap(axes[i - 1], axes[rng_.below(static_cast<int>(i))]);
  }
  const bool keepdims = rng_.percent(50);
  const std::vector<int64_t> norm = normalizedAxes(axes, rank);
  Shape shape;
  int64_t n = 1;
  for (int64_t d = 0; d < rank; ++d) {
    const bool reduced = std::find(norm.begin(), norm.end(), d) != norm.end();
    if (reduced) n *= va.shape[d];
    if (!reduced) shape.push_back(va.shape[d]);
    else if (keepdims) shape.push_back(1);
  }
  // A sum of n values bounded by b: pre-scale by a power of two so that the sum stays below
  // 2^14 (f16's largest finite value is 65504; the rescale after the step brings it back).
  double scale = 1, bound = va.bound;
  int k = 0;
  if (kind == "sum") {
    const double raw = static_cast<double>(n) * va.bound;
    if (raw > 0x1p14) k = static_cast<int>(std::ceil(std::log2(raw / 0x1p14)));
    scale = std::ldexp(1.0, -k);
    bound = raw * scale;
  }
  const std::string axesText = axes.empty() ? "all" : listText(axes);
  const std::string text = kind + "(" + name(a) + (k ? " * 2^-" + std::to_string(k) : "") +
                           ", axes " + axesText + (keepdims ? ", keepdims" : "") + ")";
  StepFn fn = [a, kind, axes, keepdims, scale](const std::vector<Tensor>& v) {
    Tensor x = scale != 1 ? v[a] * scale : v[a];
    return kind == "sum"    ? tg::sum(x, axes, keepdims)
           : kind == "mean" ? tg::mean(x, axes, keepdims)
                            : tg::max(x, axes, keepdims);
  };
  const int self = static_cast<int>(values_.size());
  NoiseField field;
  if (kind == "max" || n == 1) {
    exact_ = true;  // max returns one of its operands; a sum of one element is that element
  } else if (n > 2) {
    field = [a, kind, scale, norm, self](const std::vector<Tensor>& v) {
      return reductionField(kind, v[a], scale, norm, v[self]);
    };
  }
  add(std::move(fn), shape, bound, text, {}, std::move(field));
  feature(kind);
  if (keepdims) feature("keepdims");
  rescaleLast(64);  // before any consumer reads it
  const int r = static_cast<int>(values_.size()) - 1;
  if (rng_.percent(60)) return reduceBack(a, r, norm, kind);
  return true;
}

/// A consumer of the reduction `r` of `a` that reads r broadcast over a's shape (through a
/// reshape that puts the reduced dims back as 1 when r does not broadcast as it is).
bool Generator::reduceBack(int a, int r, const std::vector<int64_t>& axes,
                           const std::string& kind) {
  const Shape sa = values_[a].shape;  // a copy: add() below grows values_
  int rb = r;
  if (!(broadcastable(values_[r].shape, sa) && values_[r].shape.size() <= sa.size() &&
        broadcastShapes(values_[r].shape, sa) == sa)) {
    Shape kept = sa;
    for (int64_t d : axes) kept[d] = 1;
    ++uses_[r];
    pending_.push_back(r);
    exact_ = true;
    rb = add([r, kept](const std::vector<Tensor>& v) { return tg::reshape(v[r], kept); }, kept,
             values_[r].bound, "reshape(" + name(r) + ", " + shapeText(kept) + ")");
  }
  ++uses_[a];
  pending_.push_back(a);
  ++uses_[rb];
  pending_.push_back(rb);
  const double ba = values_[a].bound, br = values_[rb].bound;
  const DType d = values_[a].dtype;
  feature("broadcast_back");
  const int c = rng_.below(100);
  if (kind == "max" && c < 50) {  // the softmax numerator: exp(x - max(x)) in (0, 1]
    // exp's own error grows with its argument x = a - max (expRel), and op by op x first
    // rounds to d (up to one ulp of |x|, a fused kernel keeps f32), which exp turns into as
    // much relative error of the result.
    const int self = static_cast<int>(values_.size());
    add([a, rb](const std::vector<Tensor>& v) { return tg::exp(v[a] - v[rb]); }, sa, 1.0,
        "exp(" + name(a) + " - " + name(rb) + ")", {},
        [a, rb, d, self](const std::vector<Tensor>& v) {
          std::vector<float> x = (tg::cast(v[a], DType::F32) - tg::cast(v[rb], DType::F32)).to_vector<float>();
          std::vector<float> y = v[self].to_vector<float>();
          std::vector<double> f(y.size());
          for (size_t i = 0; i < y.size(); ++i) {
            const double ax = std::fabs(static_cast<double>(x[i]));
            f[i] = (expRel(ax) + ulpRel(d) * ax) * std::fabs(y[i]) + 0x1p-140;
          }
          return f;
        });
    return true;
  }
  if (c < 40) {  // centering: x - mean(x)
    add([a, rb](const std::vector<Tensor>& v) { return v[a] - v[rb]; }, sa, ba + br,
        name(a) + " - " + name(rb));
    return true;
  }
  if (c < 55) {  // normalisation: x * rsqrt(|s| + 0.5)
    add([a, rb](const std::vector<Tensor>& v) { return v[a] * tg::rsqrt(tg::abs(v[rb]) + 0.5); },
        sa, ba * 1.42, name(a) + " * rsqrt(abs(" + name(rb) + ") + 0.5)",
        opNoise("rsqrt", d, br + 0.5));
    return true;
  }
  return binaryOf(a, rb);
}

//===----------------------------------------------------------------------===//
// softmax and layer_norm
//===----------------------------------------------------------------------===//

bool Generator::softmax() {
  const int a = operandWhere([&](int v) { return !values_[v].shape.empty(); });
  if (a < 0) return false;
  const int64_t rank = static_cast<int64_t>(values_[a].shape.size());
  const int64_t axis = rng_.range(static_cast<int>(-rank), static_cast<int>(rank - 1));
  const int64_t norm = axis < 0 ? axis + rank : axis;
  const int self = static_cast<int>(values_.size());
  propagate_ = [a, norm, self](const std::vector<Tensor>& v, const std::vector<std::vector<double>>& e) {
    return softmaxPropagation(v[a], e[a], norm, v[self]);
  };
  add([a, axis](const std::vector<Tensor>& v) { return tg::softmax(v[a], axis); },
      values_[a].shape, 1.0, "softmax(" + name(a) + ", " + std::to_string(axis) + ")", {},
      [a, norm, self](const std::vector<Tensor>& v) { return softmaxField(v[a], norm, v[self]); });
  composites_ = true;
  feature("softmax");
  return true;
}

int Generator::affineOperand(const Shape& shape, DType dtype, std::vector<float>* constant) {
  const int c = rng_.below(100);
  if (c < 30) {  // an existing value of that type
    const int v = operandWhere([&](int u) { return values_[u].shape == shape && values_[u].dtype == dtype; });
    if (v >= 0) return v;
  }
  if (c < 70 || !options_.constants) {
    const int v = newInput(shape, dtype);
    if (v >= 0) {
      ++uses_[v];
      pending_.push_back(v);
      return v;
    }
    if (!options_.constants) return -2;  // nothing available
  }
  *constant = denseValues(tg::shape_numel(shape));
  feature("dense_constant");
  return -1;
}

/// layer_norm(x), layer_norm(x, w, b), and with only a weight or only a bias (the public API
/// takes an undefined tensor for either).
bool Generator::layerNorm() {
  const int a = operandWhere([&](int v) { return !values_[v].shape.empty(); });
  if (a < 0) return false;
  const Shape shape = values_[a].shape;
  const DType d = values_[a].dtype;
  const int64_t n = shape.back();
  const int form = rng_.below(4);  // 0: none, 1: both, 2: weight, 3: bias
  std::vector<float> wc, bc;
  int w = -2, b = -2;
  if (form == 1 || form == 2) w = affineOperand({n}, d, &wc);
  if (form == 1 || form == 3) b = affineOperand({n}, d, &bc);
  static const std::vector<double> epsilons = {1e-5, 1e-3, 0.1};
  const double eps = rng_.pick(epsilons);
  const double bw = w >= 0 ? values_[w].bound : 1.0, bb = b >= 0 ? values_[b].bound : 1.0;
  const double bound = std::max(1.0, std::sqrt(static_cast<double>(n))) * (w != -2 ? bw : 1.0) +
                       (b != -2 ? bb : 0.0);
  // The affine operands as the lambda sees them: a value, a dense constant, or none.
  // (Constants take x's dtype: the sensitivity analysis evaluates steps in f32.)
  auto operandOf = [](int i, const std::vector<float>& c, int64_t n) {
    return [i, c, n](const std::vector<Tensor>& v, const Tensor& like) -> Tensor {
      if (i >= 0) return v[i];
      if (i == -1) return tg::from_vector(c, {n}, like.dtype(), like.device());
      return Tensor();
    };
  };
  auto wOf = operandOf(w, wc, n), bOf = operandOf(b, bc, n);
  auto text = [&](int i, const std::vector<float>& c) {
    return i >= 0 ? name(i) : i == -1 ? "dense[" + std::to_string(c.size()) + "]" : "none";
  };
  const int self = static_cast<int>(values_.size());
  propagate_ = [a, w, b, wOf, bOf, eps](const std::vector<Tensor>& v, const std::vector<std::vector<double>>& e) {
    Tensor wt = wOf(v, v[a]), bt = bOf(v, v[a]);
    const std::vector<double> none;
    return layerNormPropagation(v[a], e[a], wt.defined() ? &wt : nullptr, w >= 0 ? &e[w] : &none,
                                bt.defined() ? &bt : nullptr, b >= 0 ? &e[b] : &none, eps);
  };
  add([a, wOf, bOf, eps](const std::vector<Tensor>& v) {
        return tg::layer_norm(v[a], wOf(v, v[a]), bOf(v, v[a]), eps);
      },
      shape, bound,
      "layer_norm(" + name(a) + ", weight " + text(w, wc) + ", bias " + text(b, bc) + ", eps " +
          num(eps) + ")",
      {},
      [a, wOf, bOf, eps, self](const std::vector<Tensor>& v) {
        Tensor wt = wOf(v, v[a]), bt = bOf(v, v[a]);
        return layerNormField(v[a], wt.defined() ? &wt : nullptr, bt.defined() ? &bt : nullptr,
                              eps, v[self]);
      });
  composites_ = true;
  feature(form == 0 ? "layer_norm" : "layer_norm_affine");
  return true;
}

//===----------------------------------------------------------------------===//
// Layout, casts, constants
//===----------------------------------------------------------------------===//

/// A transpose of any permutation, a reshape (flatten, merge, split, insert or drop unit
/// dims), a broadcast to a larger shape, or a round trip through one of them with an
/// elementwise op in between (a layout chain inside a fusion).
bool Generator::permuteOrReshape() {
  const int a = operand();
  const Shape sa = values_[a].shape;
  const int64_t rank = static_cast<int64_t>(sa.size());
  const double ba = values_[a].bound;
  const int c = rng_.below(100);
  auto randomPerm = [&] {
    std::vector<int64_t> p(static_cast<size_t>(rank));
    std::iota(p.begin(), p.end(), 0);
    for (size_t i = p.size(); i > 1; --i) std::swap(p[i - 1], p[rng_.below(static_cast<int>(i))]);
    return p;
  };
  auto permuted = [&](const std::vector<int64_t>& p) {
    Shape s;
    for (int64_t x : p) s.push_back(sa[x]);
    return s;
  };
  auto reshaped = [&]() -> Shape {
    const int64_t numel = tg::shape_numel(sa);
    Shape s = sa;
    switch (rng_.below(5)) {
      case 0: return {numel};
      case 1:  // merge two adjacent dims
        if (rank >= 2) {
          const int64_t i = rng_.below(static_cast<int>(rank - 1));
          s[i] *= s[i + 1];
          s.erase(s.begin() + i + 1);
        }
        return s;
      case 2: {  // split a dim by a factor
        for (int tries = 0; tries < 4 && rank >= 1; ++tries) {
          const int64_t i = rng_.below(static_cast<int>(rank));
          for (int64_t f : {2, 3, 4, 8, 5, 13})
            if (s[i] > f && s[i] % f == 0) {
              s[i] /= f;
              s.insert(s.begin() + i, f);
              return s;
            }
        }
        return {numel};
      }
      case 3: s.insert(s.begin() + rng_.below(static_cast<int>(rank + 1)), 1); return s;
      default: {
        Shape t;
        for (int64_t x : s)
          if (x != 1) t.push_back(x);
        if (t.empty()) t.push_back(1);
        return t;
      }
    }
  };
  auto withMinusOne = [&](const Shape& s) {
    std::vector<int64_t> spec(s.begin(), s.end());
    if (!spec.empty() && rng_.percent(30)) spec[rng_.below(static_cast<int>(spec.size()))] = -1;
    return spec;
  };
  if (c < 30 && rank >= 2) {
    std::vector<int64_t> p = randomPerm();
    const Shape s = permuted(p);
    std::vector<int64_t> spec = p;
    for (int64_t& x : spec)
      if (rng_.percent(30)) x -= rank;
    exact_ = true;
    add([a, spec](const std::vector<Tensor>& v) { return tg::transpose(v[a], spec); }, s, ba,
        "transpose(" + name(a) + ", " + listText(spec) + ")");
    feature("permute");
    return true;
  }
  if (c < 55) {
    const Shape s = reshaped();
    const std::vector<int64_t> spec = withMinusOne(s);
    exact_ = true;
    add([a, spec](const std::vector<Tensor>& v) { return tg::reshape(v[a], Shape(spec.begin(), spec.end())); },
        s, ba, "reshape(" + name(a) + ", " + listText(spec) + ")");
    feature("reshape");
    return true;
  }
  if (c < 70) {
    Shape s = sa;
    std::vector<size_t> ones;
    for (size_t i = 0; i < s.size(); ++i)
      if (s[i] == 1) ones.push_back(i);
    if (!ones.empty() && rng_.percent(60)) {
      s[rng_.pick(ones)] = rng_.pick(std::vector<int64_t>{2, 3, 7, 16});
    } else {
      s.insert(s.begin(), rng_.range(2, 3));
    }
    if (tg::shape_numel(s) > options_.maxElements) {
      unpick();
      return false;
    }
    exact_ = true;
    add([a, s](const std::vector<Tensor>& v) { return tg::broadcast_to(v[a], s); }, s, ba,
        "broadcast_to(" + name(a) + ", " + shapeText(s) + ")");
    feature("broadcast_to");
    return true;
  }
  // Round trip: layout, an elementwise op, the inverse layout.
  const int op = rng_.below(3);
  const std::string opText = op == 0 ? "tanh" : op == 1 ? "neg" : "* 1.5 + 0.25";
  auto f = [op](const Tensor& x) { return op == 0 ? tg::tanh(x) : op == 1 ? tg::neg(x) : x * 1.5 + 0.25; };
  const double bound = op == 0 ? 1.0 : op == 1 ? ba : 1.5 * ba + 0.25;
  const DType d = values_[a].dtype;
  Noise noise = op == 0 ? opNoise("tanh", d, ba) : Noise{};
  NoiseField field;
  if (op == 2 && d != DType::F32)  // op by op, a * 1.5 rounds before + 0.25 (cancellation)
    field = [a, d](const std::vector<Tensor>& v) {
      std::vector<float> x = v[a].to_vector<float>();
      std::vector<double> f(x.size());
      for (size_t i = 0; i < x.size(); ++i) f[i] = ulpRel(d) * 1.5 * std::fabs(x[i]);
      return f;
    };
  exact_ = op == 1;
  if (rank >= 2 && rng_.percent(50)) {
    std::vector<int64_t> p = randomPerm(), inv(p.size());
    for (size_t i = 0; i < p.size(); ++i) inv[p[i]] = static_cast<int64_t>(i);
    add([a, p, inv, f](const std::vector<Tensor>& v) { return tg::transpose(f(tg::transpose(v[a], p)), inv); },
        sa, bound,
        "transpose(" + opText + "(transpose(" + name(a) + ", " + listText(p) + ")), " + listText(inv) + ")",
        noise, field);
  } else {
    const Shape s = reshaped();
    add([a, s, sa, f](const std::vector<Tensor>& v) { return tg::reshape(f(tg::reshape(v[a], s)), sa); },
        sa, bound, "reshape(" + opText + "(reshape(" + name(a) + ", " + shapeText(s) + ")), " + shapeText(sa) + ")",
        noise, field);
  }
  feature("layout_round_trip");
  return true;
}

/// A value of another float dtype (later steps of that dtype may use it).
bool Generator::dtypeCast() {
  const int a = operand();
  std::vector<DType> others;
  for (DType o : {DType::F32, DType::BF16, DType::F16})
    if (o != values_[a].dtype) others.push_back(o);
  const DType to = rng_.pick(others);
  outSet_ = true;
  out_ = to;
  exact_ = to == DType::F32;  // widening is exact; narrowing rounds (bf16 -> f16 too, below 2^-14)
  add([a, to](const std::vector<Tensor>& v) { return tg::cast(v[a], to); }, values_[a].shape,
      values_[a].bound, "cast(" + name(a) + ", " + tg::dtype_name(to) + ")");
  feature("cast");
  return true;
}

/// A splat (tg::full) or small dense (tg::from_vector) constant made inside the lambda,
/// combined with a value; or a reduction of an expression of a splat (canonicalization folds
/// it to a splat that the fuser clones into the reduction's kernel) times a value.
bool Generator::constant() {
  const int a = operand();
  const Shape sa = values_[a].shape;
  const double ba = values_[a].bound;
  const int c = rng_.below(100);
  if (c < 12 && !sa.empty()) {
    static const std::vector<double> splats = {0.5, -1.5, 2.0, 0.75};
    const double s = rng_.pick(splats);
    const int64_t n = sa.back();
    // The mean of n copies of tanh(s): exact where the compiler folds it; a GPU reduction of
    // the splat adds n equal f32 values (accumulation bound, relative to the mean itself) and
    // its tanh may be the GPU's (tanh's bound); then the product rounds.
    Noise noise = opNoise("tanh", values_[a].dtype, std::fabs(s));
    if (n > 2) noise.rel += 1.01 * accumulationDepth(n) * 0x1p-24 + 2 * 0x1p-24;
    add([a, s](const std::vector<Tensor>& v) {
          Tensor k = tg::full(v[a].shape(), s, v[a].dtype(), v[a].device());
          return v[a] * tg::mean(tg::tanh(k), {-1}, true);
        },
        sa, ba, name(a) + " * mean(tanh(full(" + num(s) + ")), axes [-1], keepdims)", noise);
    feature("reduced_constant");
    return true;
  }
  if (c < 45 || sa.empty()) {
    static const std::vector<double> splats = {0.5, -1.5, 2.0, 0.25, 3.0};
    const double s = rng_.pick(splats);
    if (rng_.percent(50)) {
      add([a, s](const std::vector<Tensor>& v) { return v[a] + tg::full(v[a].shape(), s, v[a].dtype(), v[a].device()); },
          sa, ba + std::fabs(s), name(a) + " + full(" + num(s) + ")");
    } else {
      exact_ = true;
      add([a, s](const std::vector<Tensor>& v) { return tg::maximum(v[a], tg::full({1}, s, v[a].dtype(), v[a].device())); },
          sa, std::max(ba, std::fabs(s)), "maximum(" + name(a) + ", full([1], " + num(s) + "))");
    }
    feature("splat_constant");
    return true;
  }
  const int64_t n = sa.back();
  if (c < 80 || tg::shape_numel(sa) > 64) {
    const std::vector<float> cv = denseValues(n);
    const bool mul = rng_.percent(50);
    add([a, cv, n, mul](const std::vector<Tensor>& v) {
          Tensor k = tg::from_vector(cv, {n}, v[a].dtype(), v[a].device());
          return mul ? v[a] * k : v[a] + k;
        },
        sa, mul ? ba : ba + 1, name(a) + (mul ? " * " : " + ") + "dense[" + std::to_string(n) + "]");
  } else {
    const std::vector<float> cv = denseValues(tg::shape_numel(sa));
    add([a, cv, sa](const std::vector<Tensor>& v) { return v[a] - tg::from_vector(cv, sa, v[a].dtype(), v[a].device()); },
        sa, ba + 1, name(a) + " - dense" + shapeText(sa));
  }
  feature("dense_constant");
  return true;
}

//===----------------------------------------------------------------------===//
// Graph breaks and checks
//===----------------------------------------------------------------------===//

/// s = mean(|a|).item() read on the host, then b * (1 / (1 + s)): a host scalar that depends
/// continuously on the data (the sensitivity analysis moves it through the mean's noise).
bool Generator::itemScale() {
  const int a = operand();
  const int64_t count = tg::shape_numel(values_[a].shape);
  const int self = static_cast<int>(values_.size());
  NoiseField field;
  if (count > 2)
    field = [a, self](const std::vector<Tensor>& v) {
      return reductionField("mean", v[a], 1.0, {}, v[self]);
    };
  const int r = add([a](const std::vector<Tensor>& v) { return tg::mean(tg::abs(v[a])); }, {},
                    values_[a].bound, "mean(abs(" + name(a) + "))", {}, std::move(field));
  const int b = operand();
  ++uses_[r];
  pending_.push_back(r);
  add([r, b](const std::vector<Tensor>& v) {
        const double s = v[r].item<float>();
        return v[b] * (1.0 / (1.0 + s));
      },
      values_[b].shape, values_[b].bound, name(b) + " * (1 / (1 + item(" + name(r) + ")))");
  breaks_ = true;
  feature("item");
  return true;
}

/// h = max(a over its leading dims).to_vector() on the host, reversed and halved (exact),
/// back as a dense constant added to a.
bool Generator::hostVector() {
  const int a = operandWhere([&](int v) {
    const Shape& s = values_[v].shape;
    return !s.empty() && s.back() <= 256;
  });
  if (a < 0) return false;
  const Shape sa = values_[a].shape;
  const int64_t rank = static_cast<int64_t>(sa.size());
  // Reduce the leading dims until at most 256 elements remain (never all of them when rank>1).
  std::vector<int64_t> axes;
  int64_t lead = 0;
  while (lead < rank - 1 && tg::shape_numel(Shape(sa.begin() + lead, sa.end())) > 256) ++lead;
  if (lead == 0 && rank > 1 && rng_.percent(50)) lead = 1;
  for (int64_t d = 0; d < lead; ++d) axes.push_back(d);
  int r = a;
  if (!axes.empty()) {
    exact_ = true;
    r = add([a, axes](const std::vector<Tensor>& v) { return tg::max(v[a], axes, false); },
            Shape(sa.begin() + lead, sa.end()), values_[a].bound,
            "max(" + name(a) + ", axes " + listText(axes) + ")");
    ++uses_[a];
    pending_.push_back(a);
  }
  ++uses_[r];
  pending_.push_back(r);
  add([a, r](const std::vector<Tensor>& v) {
        std::vector<float> h = v[r].to_vector<float>();
        std::reverse(h.begin(), h.end());
        for (float& x : h) x *= 0.5f;
        return v[a] + tg::from_vector(h, v[r].shape(), v[a].dtype(), v[a].device());
      },
      sa, values_[a].bound * 1.5,
      name(a) + " + from_vector(reverse(to_vector(" + name(r) + ")) * 0.5)");
  breaks_ = true;
  feature("to_vector");
  return true;
}

/// if (max(e) > t) tanh(a) else a * 0.5 - 0.25, where e is computed exactly on both sides
/// (an input, or exact ops of inputs): the branch cannot differ between GPU and CPU.
bool Generator::branch() {
  const int e = operandWhere([&](int v) { return !values_[v].tainted; });
  if (e < 0) return false;
  static const std::vector<double> thresholds = {0.5, 1.0, 2.0, -1.0};
  const double t = rng_.pick(thresholds);
  const int a = operand();
  const DType d = values_[a].dtype;
  const double ba = values_[a].bound;
  const Noise tanhNoise = opNoise("tanh", d, ba);
  const int self = static_cast<int>(values_.size());
  auto taken = [e, t](const std::vector<Tensor>& v) { return static_cast<bool>(tg::max(v[e]) > t); };
  outSet_ = true;  // a's dtype, not the condition's
  out_ = d;
  add([taken, a](const std::vector<Tensor>& v) {
        return taken(v) ? tg::tanh(v[a]) : v[a] * 0.5 - 0.25;
      },
      values_[a].shape, std::max(1.0, 0.5 * ba + 0.25),
      "if (max(" + name(e) + ") > " + num(t) + ") tanh(" + name(a) + ") else " + name(a) +
          " * 0.5 - 0.25",
      {},
      [taken, tanhNoise, self](const std::vector<Tensor>& v) {
        std::vector<float> y = v[self].to_vector<float>();
        std::vector<double> f(y.size(), 0.0);
        if (taken(v))
          for (size_t i = 0; i < y.size(); ++i) f[i] = tanhNoise.rel * std::fabs(y[i]) + tanhNoise.abs;
        return f;
      });
  breaks_ = true;
  feature("bool");
  return true;
}

/// w = a * 0.5 (exact) and tg::check(|w| <= 1.5 bound + 1): a condition that holds on both
/// sides with a wide margin.
bool Generator::check() {
  const int a = operand();
  const double bound = values_[a].bound * 0.5;
  const double limit = 1.5 * bound + 1;
  exact_ = true;
  Noise noise;  // exact, except in a 16-bit subnormal range (rescaleLast says why)
  noise.abs = subnormalStep(values_[a].dtype);
  // w moves by half of a's bound (not by evaluating the step at a's corners: a moved to the
  // edge of its error bound may well fail the check).
  propagate_ = [a](const std::vector<Tensor>&, const std::vector<std::vector<double>>& e) {
    std::vector<double> half = e[a];
    for (double& x : half) x *= 0.5;
    return half;
  };
  add([a, limit](const std::vector<Tensor>& v) {
        Tensor w = v[a] * 0.5;
        tg::check(tg::abs(w) <= limit, "random program: a value exceeds its bound");
        return w;
      },
      values_[a].shape, bound, "check(abs(" + name(a) + " * 0.5) <= " + num(limit) + ")", noise);
  checks_ = true;
  feature("check");
  return true;
}

}  // namespace tgtest::detail
