//===- RandomGraphMatmul.cpp - The richer generator's matmul steps --------===//
//
// Matmuls (rank 2 and batched, rank-2 operands shared by the batches, transposed operands,
// Gram matrices, a layer of a [layers, ...] input read as a window, shapes for the
// tensor-core paths and odd ones) with epilogues (bias, activation, residual, cast, scale).
// Operands are pre-scaled by powers of two so that every value stays finite in f16.
//
//===----------------------------------------------------------------------===//
#include "RandomGraphImpl.h"

#include <algorithm>
#include <cmath>

namespace tgtest::detail {

/// a @ b with a from the program (or a new input), b a new weight input ([K, N], [N, K]
/// transposed, batched, or one layer of a [layers, ...] input), a's own transpose (a Gram
/// matrix), another value, or a small dense constant; then an epilogue.
bool Generator::matmul() {
  auto extent = [&] { return rng_.percent(60) ? rng_.pick(friendlyExtents()) : rng_.pick(oddExtents()); };
  int a = rng_.percent(70) ? operandWhere([&](int v) { return values_[v].shape.size() >= 2; }) : -1;
  if (a < 0) {
    Shape s;
    if (rng_.percent(30)) s.push_back(rng_.range(2, 4));
    s.push_back(extent());
    s.push_back(extent());
    while (tg::shape_numel(s) > options_.maxElements) {
      auto largest = std::max_element(s.begin(), s.end());
      *largest = std::max<int64_t>(1, *largest / 2);
    }
    a = newInput(s, dtype_);
    if (a < 0) return false;
    ++uses_[a];
    pending_.push_back(a);
  }
  const Shape sa = values_[a].shape;
  const DType d = values_[a].dtype;
  const size_t ra = sa.size();
  const bool ta = rng_.percent(25);
  const int64_t m = ta ? sa[ra - 1] : sa[ra - 2], k = ta ? sa[ra - 2] : sa[ra - 1];
  const Shape batchA(sa.begin(), sa.end() - 2);
  const int64_t batch = tg::shape_numel(batchA);

  // b: -1 a constant, else a value; tb: b is stored [N, K] and transposed.
  int b = -1;
  bool tb = false;
  int64_t n = 0;
  std::vector<float> bc;
  Shape sbStored;
  // matmul_window: b is layer `layer` of an input [layers, ...] (a KV cache's keys or values),
  // a contiguous window read in place, through a view of the input when its offset allows.
  int64_t layers = 0, layer = 0;
  const int form = rng_.below(100);
  std::string formName;
  auto fits = [&](int64_t bt, int64_t nn) {
    return bt * m * k * nn <= options_.maxMacs && bt * m * nn <= options_.maxElements;
  };
  if (form < 20 && fits(batch, m)) {  // Gram matrix: a @ a^T, or a^T @ a
    b = a;
    tb = !ta;
    n = m;
    formName = "matmul_gram";
  } else if (form < 40) {  // another value [.., K, N] or [.., N, K]
    tb = rng_.percent(35);
    b = operandWhere([&](int v) {
      const Shape& s = values_[v].shape;
      if (v == a || values_[v].dtype != d || s.size() < 2) return false;
      const Shape bb(s.begin(), s.end() - 2);
      if (!(s.size() == 2 || ra == 2 || bb == batchA)) return false;
      const int64_t kk = tb ? s[s.size() - 1] : s[s.size() - 2], nn = tb ? s[s.size() - 2] : s[s.size() - 1];
      return kk == k && fits(std::max(batch, tg::shape_numel(bb)), nn);
    });
    if (b >= 0) {
      const Shape& s = values_[b].shape;
      n = tb ? s[s.size() - 2] : s[s.size() - 1];
      formName = "matmul_values";
    }
  }
  if (b < 0 && formName.empty()) {  // a new weight (or a dense constant)
    n = extent();
    while (n > 1 && !fits(batch, n)) n = n > 8 ? n / 2 : n - 1;
    if (!fits(batch, n)) {
      unpick();
      return false;
    }
    tb = rng_.percent(35);
    Shape sb = tb ? Shape{n, k} : Shape{k, n};
    if (ra > 2 && rng_.percent(25) && batch * k * n <= options_.maxElements)
      sb.insert(sb.begin(), batchA.begin(), batchA.end());
    if (tg::shape_numel(sb) > options_.maxElements) {
      unpick();
      return false;
    }
    if (options_.constants && tg::shape_numel(sb) <= 1024 && rng_.percent(15)) {
      bc = denseValues(tg::shape_numel(sb));
      sbStored = sb;
      formName = "matmul_constant";
    } else {
      Shape stored = sb;
      if (rng_.percent(20) && 4 * tg::shape_numel(sb) <= options_.maxElements) {
        layers = rng_.range(2, 4);
        layer = rng_.range(0, layers - 1);
        stored.insert(stored.begin(), layers);
      }
      b = newInput(stored, d);
      if (b < 0) {
        unpick();
        return false;
      }
      ++uses_[b];
      pending_.push_back(b);
      formName = layers ? "matmul_window" : "matmul_weight";
      if (layers) sbStored = sb;
    }
  }
  if (b >= 0 && b != a && !layers) sbStored = values_[b].shape;
  if (b == a) {
    ++uses_[a];
    pending_.push_back(a);
    sbStored = sa;
  }
  const Shape batchB(sbStored.begin(), sbStored.end() - 2);
  Shape shape = batchA.size() >= batchB.size() ? batchA : batchB;
  shape.push_back(m);
  shape.push_back(n);
  const double bb = b >= 0 ? values_[b].bound : 1.0;
  // Pre-scale a by a power of two so that K * |a| * |b| stays below 2^14 (f16-safe).
  const double raw = static_cast<double>(k) * values_[a].bound * bb;
  const int sk = raw > 0x1p14 ? static_cast<int>(std::ceil(std::log2(raw / 0x1p14))) : 0;
  const double scale = std::ldexp(1.0, -sk);
  // The operands as matmul sees them (the scale before the transpose, so that the
  // canonicalizer folds the transpose into the matmul).
  auto opA = [a, ta, scale](const std::vector<Tensor>& v) {
    Tensor x = scale != 1 ? v[a] * scale : v[a];
    return ta ? tg::transpose(x, -1, -2) : x;
  };
  auto opB = [b, tb, bc, sbStored, layers, layer](const std::vector<Tensor>& v, const Tensor& like) {
    Tensor y = b >= 0 ? v[b] : tg::from_vector(bc, sbStored, like.dtype(), like.device());
    if (layers) y = tg::reshape(tg::slice(y, 0, layer, layer + 1), sbStored);
    return tb ? tg::transpose(y, -1, -2) : y;
  };
  // The operands' error bounds, moved by the same layout (and scale) as the operands.
  auto errorOf = [](const std::vector<double>& e, const Tensor& like, double scale, bool t) {
    std::vector<float> f(static_cast<size_t>(like.numel()), 0.0f);
    for (size_t i = 0; i < e.size(); ++i) f[i] = static_cast<float>(e[i] * scale);
    Tensor x = tg::from_vector(f, like.shape(), DType::F32, like.device());
    if (t) x = tg::transpose(x, -1, -2);
    std::vector<float> g = x.to_vector<float>();
    return std::vector<double>(g.begin(), g.end());
  };
  // (A window is of a new input, which is exact: no error, as for a constant.)
  propagate_ = [opA, opB, errorOf, a, b, ta, tb, scale, layers](const std::vector<Tensor>& v,
                                                               const std::vector<std::vector<double>>& e) {
    const std::vector<double> none;
    const bool value = b >= 0 && !layers;
    return matmulPropagation(opA(v), errorOf(e[a], v[a], scale, ta), opB(v, v[a]),
                             errorOf(value ? e[b] : none, value ? v[b] : opB(v, v[a]), 1.0, value && tb));
  };
  const int self = static_cast<int>(values_.size());
  const std::string bText = b < 0    ? "dense" + shapeText(sbStored)
                            : layers ? name(b) + "[" + std::to_string(layer) + "]"
                                     : name(b);
  add([opA, opB, a](const std::vector<Tensor>& v) { return tg::matmul(opA(v), opB(v, v[a])); },
      shape, raw * scale,
      "matmul(" + std::string(ta ? "transpose(" : "") + name(a) +
          (sk ? " * 2^-" + std::to_string(sk) : "") + (ta ? ")" : "") + ", " +
          (tb ? "transpose(" : "") + bText + (tb ? ")" : "") + ")",
      {},
      [opA, opB, a, self](const std::vector<Tensor>& v) {
        return matmulField(opA(v), opB(v, v[a]), v[self]);
      });
  matmuls_ = true;
  feature(formName);
  if (shape.size() > 2) feature("matmul_batched");
  if (ta) feature("matmul_ta");
  if (tb) feature("matmul_tb");
  epilogue(self);
  return true;
}

/// Elementwise consumers of a matmul that the fuser makes its epilogue: + bias[N], an
/// activation, + a residual of the result's shape, a cast, a scale.
void Generator::epilogue(int mm) {
  int cur = mm;
  const DType d = values_[mm].dtype;
  const int64_t n = values_[mm].shape.back();
  auto use = [&](int v) {
    ++uses_[v];
    pending_.push_back(v);
  };
  if (rng_.percent(50)) {
    std::vector<float> bc;
    use(cur);
    const int b = affineOperand({n}, d, &bc);
    if (b == -2) {
      unpick();
    } else {
      const int c = cur;
      const double bb = b >= 0 ? values_[b].bound : 1.0;
      cur = add([c, b, bc, n](const std::vector<Tensor>& v) {
                  return v[c] + (b >= 0 ? v[b] : tg::from_vector(bc, {n}, v[c].dtype(), v[c].device()));
                },
                values_[cur].shape, values_[cur].bound + bb,
                name(cur) + " + " + (b >= 0 ? name(b) : "dense[" + std::to_string(n) + "]"));
      feature("epilogue_bias");
    }
  }
  if (rng_.percent(40)) {
    unaryOf(cur);
    cur = static_cast<int>(values_.size()) - 1;
    feature("epilogue_activation");
  }
  if (rng_.percent(25)) {
    use(cur);
    const int r = operandWhere([&](int v) {
      return v != cur && values_[v].shape == values_[cur].shape && values_[v].dtype == d;
    });
    if (r < 0) {
      unpick();
    } else {
      const int c = cur;
      cur = add([c, r](const std::vector<Tensor>& v) { return v[c] + v[r]; }, values_[cur].shape,
                values_[cur].bound + values_[r].bound, name(cur) + " + " + name(r));
      feature("epilogue_residual");
    }
  }
  if (options_.casts && rng_.percent(20)) {
    std::vector<DType> others;
    for (DType o : {DType::F32, DType::BF16, DType::F16})
      if (o != d) others.push_back(o);
    const DType to = rng_.pick(others);
    use(cur);
    outSet_ = true;
    out_ = to;
    exact_ = to == DType::F32;  // widening is exact
    const int c = cur;
    cur = add([c, to](const std::vector<Tensor>& v) { return tg::cast(v[c], to); },
              values_[cur].shape, values_[cur].bound,
              "cast(" + name(cur) + ", " + tg::dtype_name(to) + ")");
    feature("epilogue_cast");
  }
  if (rng_.percent(20)) {
    use(cur);
    const int c = cur;
    exact_ = true;
    Noise noise;  // exact, except in a 16-bit subnormal range (rescaleLast says why)
    noise.abs = subnormalStep(values_[cur].dtype);
    cur = add([c](const std::vector<Tensor>& v) { return v[c] * 0.5; }, values_[cur].shape,
              values_[cur].bound * 0.5, name(cur) + " * 0.5", noise);
  }
}

}  // namespace tgtest::detail
