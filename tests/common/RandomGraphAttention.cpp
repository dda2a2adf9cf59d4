//===- RandomGraphAttention.cpp - The richer generator's attention steps --===//
//
// softmax(modify(q @ k^T * scale)) @ v over new inputs q [H, M, D], k and v [H, S, D], with a
// random score modifier between the products: a soft cap (tanh(s / c) * c), an ALiBi bias
// (a slope times the key's distance from the row's diagonal, from iotas), an additive bias
// input, and masks written as where(predicate, s, -inf): causal (aligned to the last key when
// there are more keys than rows), a sliding window, a padding mask read from an input. Masks
// come last (a modifier after a mask would give masked keys a finite score), and every row
// keeps at least one key (the reference's softmax of a row of -inf is NaN; the GPU tests
// check fully masked rows against a float64 reference). The scores, the modifier's steps and
// the probabilities are hidden from later steps and from the results, so that the fuser may
// make the whole pattern one attention kernel (many rows, head dim 64 or 128 and 16-bit
// operands: the flash kernel on sm_90a; other head dims or f32: the separate kernels).
//
//===----------------------------------------------------------------------===//
#include "RandomGraphImpl.h"

#include <algorithm>
#include <cmath>

namespace tgtest::detail {

bool Generator::attention() {
  if (numInputs_ + 3 > 8) return false;
  static const std::vector<int64_t> rowChoices = {17, 40, 64, 100, 130, 200};
  static const std::vector<int64_t> dims = {64, 64, 128, 128, 40};
  int64_t heads = rng_.range(1, 3), m = rng_.pick(rowChoices), d = rng_.pick(dims);
  const std::vector<int64_t> keyChoices = {m, m + 37, 128, 129, 256, 300};
  int64_t s = rng_.pick(keyChoices);
  // The scores are the largest value: H * M * S elements, H * M * S * D multiply-adds a product.
  auto fits = [&] {
    return heads * m * s <= options_.maxElements && heads * m * s * d <= 4 * options_.maxMacs &&
           heads * s * d <= options_.maxElements;
  };
  while (!fits() && heads > 1) --heads;
  while (!fits() && s > 17) s = std::max<int64_t>(17, s / 2);
  while (!fits() && m > 17) m = std::max<int64_t>(17, m / 2);
  if (!fits()) return false;
  const DType dt = dtype_;
  const int q = newInput({heads, m, d}, dt), k = newInput({heads, s, d}, dt), v = newInput({heads, s, d}, dt);
  auto use = [&](int x) {
    ++uses_[x];
    pending_.push_back(x);
  };
  auto hide = [&](int x) {
    values_[x].hidden = true;
    return x;
  };

  // 1. q @ k^T, q pre-scaled by a power of two so that D |q| |k| stays f16-safe.
  const double raw = static_cast<double>(d) * values_[q].bound * values_[k].bound;
  const int sk = raw > 0x1p14 ? static_cast<int>(std::ceil(std::log2(raw / 0x1p14))) : 0;
  const double qScale = std::ldexp(1.0, -sk);
  auto opA = [q, qScale](const std::vector<Tensor>& x) { return qScale != 1 ? x[q] * qScale : x[q]; };
  auto opB = [k](const std::vector<Tensor>& x) { return tg::transpose(x[k], 1, 2); };
  use(q);
  use(k);
  int cur = static_cast<int>(values_.size());
  {
    const int self = cur;
    add([opA, opB](const std::vector<Tensor>& x) { return tg::matmul(opA(x), opB(x)); }, {heads, m, s},
        raw * qScale, "matmul(" + name(q) + (sk ? " * 2^-" + std::to_string(sk) : "") + ", transpose(" + name(k) + "))",
        {}, [opA, opB, self](const std::vector<Tensor>& x) { return matmulField(opA(x), opB(x), x[self]); });
  }
  hide(cur);

  // 2. In f32, times 1 / sqrt(D) (a power of two for D = 64: exact).
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  use(cur);
  outSet_ = true;
  out_ = DType::F32;
  Noise scaleNoise;
  scaleNoise.rel = 0x1p-23;  // the product's rounding, and a contraction into a later add
  {
    const int c = cur;
    cur = hide(add([c, scale](const std::vector<Tensor>& x) { return tg::cast(x[c], DType::F32) * scale; },
                   {heads, m, s}, values_[cur].bound * scale,
                   "cast(" + name(cur) + ", f32) * " + num(scale), scaleNoise));
  }
  const Shape scores = {heads, m, s};
  const int64_t off = std::max<int64_t>(0, s - m);  // the last row sees the last key
  auto rowIota = [m](const Tensor& like) { return tg::iota({1, m, 1}, 1, DType::I32, like.device()); };
  auto keyIota = [s](const Tensor& like) { return tg::iota({1, 1, s}, 2, DType::I32, like.device()); };

  // 3. The modifier: a soft cap, then a bias (ALiBi or an input), then masks.
  if (rng_.percent(30)) {
    static const std::vector<double> caps = {5.0, 20.0, 50.0};
    const double cap = rng_.pick(caps);
    use(cur);
    Noise n;
    n.abs = cap * unitAbs(opNoise("tanh", DType::F32, values_[cur].bound / cap));
    n.rel = 0x1p-22;
    const int c = cur;
    cur = hide(add([c, cap](const std::vector<Tensor>& x) { return tg::tanh(x[c] * (1.0 / cap)) * cap; }, scores,
                   std::min(values_[cur].bound, cap), "tanh(" + name(cur) + " / " + num(cap) + ") * " + num(cap), n));
    feature("attention_softcap");
  }
  const int biasKind = rng_.below(100);
  if (biasKind < 25) {  // ALiBi: slope * (key - row - off), <= 0 under the causal mask
    const double slope = std::ldexp(1.0, -rng_.range(1, 5));
    use(cur);
    Noise n;
    n.rel = 0x1p-23;
    const int c = cur;
    cur = hide(add(
        [c, slope, off, rowIota, keyIota](const std::vector<Tensor>& x) {
          const Tensor dist = tg::cast(keyIota(x[c]) - rowIota(x[c]) - off, DType::F32);
          return x[c] + dist * slope;
        },
        scores, values_[cur].bound + slope * static_cast<double>(m + s),
        name(cur) + " + " + num(slope) + " * (key - row - " + std::to_string(off) + ")", n));
    feature("attention_alibi");
  } else if (biasKind < 45) {  // an additive bias input, per row and key (and head, or shared)
    const Shape shape = rng_.percent(50) ? Shape{m, s} : Shape{heads, m, s};
    const int b = newInput(shape, dt);
    if (b >= 0) {
      use(cur);
      use(b);
      Noise n;
      n.rel = 0x1p-23;
      const int c = cur;
      cur = hide(add([c, b](const std::vector<Tensor>& x) { return x[c] + tg::cast(x[b], DType::F32); }, scores,
                     values_[cur].bound + values_[b].bound, name(cur) + " + " + name(b), n));
      feature("attention_bias");
    }
  }
  // Masks (selects: exact). Each row keeps key min(row + off, s - 1) >= 0 under the causal
  // mask, keys (row + off - w, row + off] under a window (only with s >= m: then row + off
  // < s), key 0 under the padding mask (which excludes the window: their meet may be empty).
  const bool causal = rng_.percent(45);
  const bool window = causal && s >= m && rng_.percent(35);
  const bool padding = !window && rng_.percent(25);
  auto mask = [&](auto predicate, const std::string& text, int extra) {
    use(cur);
    if (extra >= 0) use(extra);
    exact_ = true;
    const int c = cur;
    cur = hide(add([c, predicate](const std::vector<Tensor>& x) -> Tensor {
                     return tg::where(predicate(x, x[c]), x[c], -INFINITY);
                   },
                   scores, values_[cur].bound, "where(" + text + ", " + name(cur) + ", -inf)"));
  };
  if (causal) {
    mask([off, rowIota, keyIota](const std::vector<Tensor>&, const Tensor& like) {
      return tg::le(keyIota(like), rowIota(like) + off);
    }, "key <= row + " + std::to_string(off), -1);
    feature("attention_causal");
  }
  if (window) {
    static const std::vector<int64_t> widths = {16, 64, 100};
    const int64_t w = rng_.pick(widths);
    mask([off, w, rowIota, keyIota](const std::vector<Tensor>&, const Tensor& like) {
      return tg::gt(keyIota(like), rowIota(like) + (off - w));
    }, "key > row + " + std::to_string(off - w), -1);
    feature("attention_window");
  }
  if (padding) {  // keys whose entry of an input [s] is above -0.5, and key 0
    const int pad = newInput({s}, dt);
    if (pad >= 0) {
      mask([pad, keyIota](const std::vector<Tensor>& x, const Tensor& like) {
        const Tensor first = tg::le(keyIota(like), tg::zeros({1}, DType::I32, like.device()));
        return tg::gt(tg::where(first, 1.0, tg::cast(x[pad], DType::F32)), tg::full({1}, -0.5, DType::F32, like.device()));
      }, name(pad) + "[key] > -0.5 or key == 0", pad);
      feature("attention_padding");
    }
  }

  // 4. softmax over the keys, back to the operand type, @ v.
  {
    use(cur);
    const int a = cur, self = static_cast<int>(values_.size());
    propagate_ = [a, self](const std::vector<Tensor>& x, const std::vector<std::vector<double>>& e) {
      return softmaxPropagation(x[a], e[a], 2, x[self]);
    };
    cur = hide(add([a](const std::vector<Tensor>& x) { return tg::softmax(x[a], -1); }, scores, 1.0,
                   "softmax(" + name(a) + ", -1)", {},
                   [a, self](const std::vector<Tensor>& x) { return softmaxField(x[a], 2, x[self]); }));
  }
  if (dt != DType::F32) {
    use(cur);
    outSet_ = true;
    out_ = dt;
    const int c = cur;
    cur = hide(add([c, dt](const std::vector<Tensor>& x) { return tg::cast(x[c], dt); }, scores, 1.0,
                   "cast(" + name(cur) + ", " + tg::dtype_name(dt) + ")"));
  }
  {
    use(cur);
    use(v);
    const int p = cur, self = static_cast<int>(values_.size());
    propagate_ = [p, v](const std::vector<Tensor>& x, const std::vector<std::vector<double>>& e) {
      return matmulPropagation(x[p], e[p], x[v], {});
    };
    attentionResults_.push_back(self);
    add([p, v](const std::vector<Tensor>& x) { return tg::matmul(x[p], x[v]); }, {heads, m, d}, values_[v].bound,
        "matmul(" + name(p) + ", " + name(v) + ")", {},
        [p, v, self](const std::vector<Tensor>& x) { return matmulField(x[p], x[v], x[self]); });
  }
  matmuls_ = composites_ = true;
  feature("attention");
  if (d != 64 && d != 128) feature("attention_odd_dim");
  return true;
}

}  // namespace tgtest::detail
