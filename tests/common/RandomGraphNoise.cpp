//===- RandomGraphNoise.cpp - How far the GPU may differ from the reference, per op ===//
//
// The tolerance model of the random programs. Each function bounds the difference between
// what the generated CUDA code computes (Precision::Auto; compiler/lib/CodeGen/ScalarMath.cpp,
// templates/*.cuh) and what the reference computes (compiler/include/tg/Reference/RefKernels.h:
// f32 math with libm, f64 accumulation), for one op on its actual operands. The sensitivity
// analysis (RandomGraph.cpp) moves each step's value by this bound and measures how far the
// outputs move; that, not a loosened global tolerance, is what the GPU is compared against.
//
// u = 2^-24 is the unit roundoff of f32 (round to nearest). A sum of values x_j evaluated with
// f32 additions in any tree of depth d differs from the exact sum by at most
// ((1 + u)^d - 1) * sum |x_j| <= 1.01 * d * u * sum |x_j| (for d * u < 0.01).
//
//===----------------------------------------------------------------------===//
#include "RandomGraphImpl.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tgtest::detail {

namespace {

constexpr double kU = 0x1p-24;  // f32 unit roundoff

std::vector<double> hostValues(const Tensor& t) {
  std::vector<float> f = t.to_vector<float>();
  return std::vector<double>(f.begin(), f.end());
}

}  // namespace

double ulpRel(DType d) { return d == DType::F32 ? 0 : std::ldexp(1.0, -(mantissaBits(d) - 1)); }

double subnormalStep(DType d) { return d == DType::F16 ? 0x1p-24 : d == DType::BF16 ? 0x1p-133 : 0; }

double expRel(double argBound) {
  // GPU (Auto): ex2.approx.f32(fl(x * log2e)). The product's rounding (u) and that of log2e
  // in f32 (u) move the exponent by 2 |x| log2e u, i.e. the result by 2 |x| u relative;
  // ex2.approx errs by 2^-22.5 and libm's expf (the reference) by < 1 ulp (2^-23).
  return 0x1p-21 + argBound * 0x1p-23;
}

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
    // rcp.approx(1 + ex2.approx(-x log2 e)): relative for every x, but exp's error grows with
    // |x| (for x << 0 sigmoid(x) is exp(x)).
    n.rel += std::max(cheap, expRel(x) + 0x1p-22);
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

double unitAbs(const Noise& n) { return n.rel + n.abs; }

/// templates/reduction.cuh, per output: with one warp per output, lane l adds elements
/// l, l + 32, ... in sequence (ceil(n/32) additions, the first onto the identity 0, exact),
/// then 5 xor-shuffle levels combine the lanes. With a block per output (n >= 2048) each
/// thread adds ceil(n/256) elements, then 5 levels within each warp and 5 more across the 8
/// warps' partials; with TG_SPLIT = s slices, ceil(n/(256 s)) + 10 per slice, then the last
/// block adds the s partials the same way (ceil(s/256) + 10). Each of these is at most
/// ceil(n/32) + 21; 24 leaves room for a scheduling change of the same shape.
double accumulationDepth(int64_t n) { return std::ceil(static_cast<double>(n) / 32) + 24; }

/// sum: the GPU adds the n elements of each output in f32 (depth d above) and stores the f32
/// sum s'; the reference adds in f64 and rounds once: |s' - ref| <= 1.01 d u sum|x| + u |ref|.
/// mean: the GPU divides s' by n in f32 (IEEE: one more rounding), the reference divides in
/// f64 and rounds: |m' - ref| <= 1.01 d u sum|x| / n + 2.01 u |ref|. n <= 2 is exact (callers
/// attach no field): one addition of two floats is exact in f64, and the GPU's single f32
/// rounding is the reference's. max is exact (it returns one of its operands).
/// A 16-bit result then rounds on both sides (one ulp more: RandomGraph.cpp's add()).
std::vector<double> reductionField(const std::string& kind, const Tensor& x, double scale,
                                   const std::vector<int64_t>& axes, const Tensor& result) {
  const Shape& shape = x.shape();
  const int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<bool> reduced(static_cast<size_t>(rank), axes.empty());
  for (int64_t a : axes) reduced[static_cast<size_t>(a)] = true;
  int64_t n = 1, outN = 1;
  for (int64_t d = 0; d < rank; ++d) (reduced[d] ? n : outN) *= shape[d];
  // Output strides over the kept dims, in the input's dim order (row-major output).
  std::vector<int64_t> outStride(static_cast<size_t>(rank), 0);
  for (int64_t d = rank - 1, s = 1; d >= 0; --d)
    if (!reduced[d]) {
      outStride[d] = s;
      s *= shape[d];
    }
  std::vector<double> absSum(static_cast<size_t>(outN), 0.0);
  const std::vector<double> xs = hostValues(x);
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  for (size_t i = 0; i < xs.size(); ++i) {
    int64_t o = 0;
    for (int64_t d = 0; d < rank; ++d) o += index[d] * outStride[d];
    absSum[o] += std::fabs(xs[i] * scale);
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == shape[d]; --d) index[d] = 0;
  }
  const std::vector<double> r = hostValues(result);
  const double depth = accumulationDepth(n);
  std::vector<double> field(absSum.size());
  for (size_t o = 0; o < field.size(); ++o) {
    if (kind == "sum")
      field[o] = 1.01 * depth * kU * absSum[o] + kU * std::fabs(r[o]);
    else  // mean
      field[o] = 1.01 * depth * kU * absSum[o] / static_cast<double>(n) + 2.01 * kU * std::fabs(r[o]);
  }
  return field;
}

/// Calls fn(base, stride, len) for every 1-D line of `shape` along `axis`.
template <typename Fn>
static void forEachLine(const Shape& shape, int64_t axis, Fn fn) {
  int64_t inner = 1, outer = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
  const int64_t len = shape[axis];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) fn(o * len * inner + i, inner, len);
}

/// softmax along a line of n values, as DecomposeComposites.cpp computes it (all in f32):
/// m = max(x) (exact), e_k = exp(x_k - m) (the subtraction is the reference's own f32
/// subtraction, bit for bit; exp errs by E_k = expRel(|x_k - m|)), S = sum(e) (f32, depth d:
/// relative error <= max E + 1.01 d u, since every e_k > 0), y_k = div.full(e_k, S) (2 ulp;
/// the bound 3 * 2^-23 as for division elsewhere). The reference computes S in f64 and
/// divides in f64, then rounds (u). So |y'_k - y_k| <= (E_k + max E + 1.01 d u + 3 * 2^-23 +
/// u) y_k, plus 2^-140 for exp results in f32's subnormal range.
std::vector<double> softmaxField(const Tensor& x, int64_t axis, const Tensor& result) {
  const std::vector<double> xs = hostValues(x), ys = hostValues(result);
  std::vector<double> field(xs.size());
  forEachLine(x.shape(), axis, [&](int64_t base, int64_t stride, int64_t len) {
    double m = -INFINITY;
    for (int64_t k = 0; k < len; ++k) m = std::max(m, xs[base + k * stride]);
    // A masked entry (-inf) is 0 on both sides and adds nothing to the sum (without this
    // skip its expRel(inf) would make every bound of the row infinite).
    double maxE = 0;
    for (int64_t k = 0; k < len; ++k)
      if (xs[base + k * stride] != -INFINITY) maxE = std::max(maxE, expRel(m - xs[base + k * stride]));
    const double common = maxE + 1.01 * accumulationDepth(len) * kU + 3 * 0x1p-23 + kU;
    for (int64_t k = 0; k < len; ++k) {
      const int64_t i = base + k * stride;
      field[i] = xs[i] == -INFINITY ? 0x1p-140 : (expRel(m - xs[i]) + common) * std::fabs(ys[i]) + 0x1p-140;
    }
  });
  return field;
}

/// layer_norm of a row of n values x_k, as DecomposeComposites.cpp computes it (all in f32):
///   mu' = mean(x)                 |mu' - mu| <= e := 1.01 d u S / n + 2.01 u |mu|  (S = sum|x|)
///   d'_k = x_k - mu'              d'_k = (d_k - e_k)(1 + r_k), |e_k| <= e, |r_k| <= u
///   v' = mean(d' * d')            sum (d_k - e)^2 = sum d_k^2 + n e^2 (sum d_k = 0), so with
///                                 the roundings of the squares and of the sum (depth d) and of
///                                 the mean: |v' - v| <= V := e^2 + 1.01 (d + 4) u (v + e^2)
///   inv' = 1 / sqrt(v' + eps)     (IEEE: add, sqrt, divide) rel. error
///                                 R := (V / (v + eps) + u) / 2 + 2 u
///   y'_k = d'_k * inv'            |y'_k - y_k| <= (e + u (|d_k| + e)) inv (1 + R) + |y_k| (R + u)
///   then * w_k (error times |w_k|, plus u |y_k w_k|) and + b_k (u |result|).
/// The reference computes mu, v and inv in f64 and rounds the result once (u |result|).
/// A 5% margin covers the second-order terms dropped above.
std::vector<double> layerNormField(const Tensor& x, const Tensor* weight, const Tensor* bias,
                                   double eps, const Tensor& result) {
  const std::vector<double> xs = hostValues(x), rs = hostValues(result);
  std::vector<double> w, b;
  if (weight) w = hostValues(*weight);
  if (bias) b = hostValues(*bias);
  const int64_t n = x.shape().back();
  std::vector<double> field(xs.size());
  const double depth = accumulationDepth(n);
  for (size_t base = 0; base < xs.size(); base += static_cast<size_t>(n)) {
    double mu = 0, s = 0;
    for (int64_t k = 0; k < n; ++k) {
      mu += xs[base + k];
      s += std::fabs(xs[base + k]);
    }
    mu /= static_cast<double>(n);
    double v = 0;
    for (int64_t k = 0; k < n; ++k) v += (xs[base + k] - mu) * (xs[base + k] - mu);
    v /= static_cast<double>(n);
    const double inv = 1 / std::sqrt(v + eps);
    const double e = 1.01 * depth * kU * s / static_cast<double>(n) + 2.01 * kU * std::fabs(mu);
    const double bigV = e * e + 1.01 * (depth + 4) * kU * (v + e * e);
    const double bigR = (bigV / (v + eps) + kU) / 2 + 2 * kU;
    for (int64_t k = 0; k < n; ++k) {
      const size_t i = base + static_cast<size_t>(k);
      const double d = xs[i] - mu, y = d * inv;
      double err = (e + kU * (std::fabs(d) + e)) * inv * (1 + bigR) + std::fabs(y) * (bigR + kU);
      if (weight) err = err * std::fabs(w[k]) + kU * std::fabs(y * w[k]);
      if (bias) err += kU * std::fabs(rs[i]);
      field[i] = 1.05 * (err + kU * std::fabs(rs[i]));
    }
  }
  return field;
}

namespace {

/// f32 `v` with its low 13 mantissa bits dropped: TF32 by truncation (toward zero) or by
/// rounding to nearest with ties away from zero (cvt.rna.tf32.f32).
float tf32(float v, bool nearest) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  if (nearest) bits += 0x1000u;  // carries into the exponent as rounding should
  bits &= ~0x1fffu;
  float r;
  std::memcpy(&r, &bits, 4);
  return r;
}

/// One TF32 ulp of `v` when `v` lies exactly halfway between two TF32 values (where round to
/// nearest even and ties away from zero differ), else 0.
double tf32Tie(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return (bits & 0x1fffu) == 0x1000u ? std::ldexp(std::fabs(v), -10) : 0.0;
}

}  // namespace

/// matmul C = A B over K, per element (i, j) with P = sum_k |a_ik| |b_kj|:
///  - products: bf16/f16 products are exact in f32 (8 + 8 and 11 + 11 significant bits). f32
///    operands are rounded to TF32 (10 explicit mantissa bits) by every tensor-core path:
///    mma_sync rounds to nearest (cvt.rna), wgmma reads the f32 bits as TFLOAT32 (measured to
///    round to nearest; ARCHITECTURE.md); the simt path (unaligned rows) keeps f32 products.
///    Rather than the worst case 2^-10 P, the field takes the actual change of C when the
///    inputs are rounded to nearest (ties away) or truncated, whichever is larger, plus one
///    TF32 ulp of every input that lies exactly on a tie (where ties-to-even would differ).
///  - accumulation: each output is accumulated in f32 along K in order, 16 products (8 for
///    TF32) per tensor-core instruction. Tensor cores add the exact products of one
///    instruction to the accumulator with truncating alignment (Fasi et al., "Numerical
///    behavior of NVIDIA tensor cores", 2021): at most one f32 ulp per addend and instruction,
///    i.e. (K/8 + 1) * 9 * 2^-23 P <= (1.25 K + 16) 2^-23 P; the simt path rounds each product
///    and each sum: 2 K u P = K 2^-23 P.
///  - the reference's f64 sum rounds once to f32 (u |C|); a 16-bit result rounds on both sides
///    (one ulp more: RandomGraph.cpp's add()).
std::vector<double> matmulField(const Tensor& a, const Tensor& b, const Tensor& result) {
  const Shape &sa = a.shape(), &sb = b.shape(), &sc = result.shape();
  const int64_t ra = static_cast<int64_t>(sa.size()), rb = static_cast<int64_t>(sb.size());
  const int64_t m = sa[ra - 2], k = sa[ra - 1], n = sb[rb - 1];
  const int64_t batch = tg::shape_numel(sc) / (m * n);
  const int64_t strideA = ra == 2 ? 0 : m * k, strideB = rb == 2 ? 0 : k * n;
  const std::vector<float> fa = a.to_vector<float>(), fb = b.to_vector<float>();
  const bool tf = a.dtype() == DType::F32;
  std::vector<float> ra1, ra2, rb1, rb2;
  std::vector<double> ta, tb;
  if (tf) {
    for (float v : fa) ra1.push_back(tf32(v, true)), ra2.push_back(tf32(v, false)), ta.push_back(tf32Tie(v));
    for (float v : fb) rb1.push_back(tf32(v, true)), rb2.push_back(tf32(v, false)), tb.push_back(tf32Tie(v));
  }
  const double accumulation = (1.25 * static_cast<double>(k) + 16) * 0x1p-23;
  std::vector<double> field(static_cast<size_t>(batch * m * n));
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double c = 0, p = 0, c1 = 0, c2 = 0, t = 0;
        for (int64_t q = 0; q < k; ++q) {
          const size_t ia = static_cast<size_t>(bi * strideA + i * k + q);
          const size_t ib = static_cast<size_t>(bi * strideB + q * n + j);
          const double x = fa[ia], y = fb[ib];
          c += x * y;
          p += std::fabs(x * y);
          if (tf) {
            c1 += static_cast<double>(ra1[ia]) * rb1[ib];
            c2 += static_cast<double>(ra2[ia]) * rb2[ib];
            t += ta[ia] * std::fabs(y) + std::fabs(x) * tb[ib];
          }
        }
        double f = accumulation * p + kU * std::fabs(c);
        if (tf) f += std::max(std::fabs(c1 - c), std::fabs(c2 - c)) + t;
        field[static_cast<size_t>((bi * m + i) * n + j)] = f;
      }
  return field;
}

//===----------------------------------------------------------------------===//
// Worst-case propagation through the steps that are not monotone in each operand element
//===----------------------------------------------------------------------===//

namespace {

/// `e` (empty: exact) as n values.
std::vector<double> orZeros(const std::vector<double>* e, size_t n) {
  return e && !e->empty() ? *e : std::vector<double>(n, 0.0);
}

}  // namespace

/// y_i = e^{x_i} / sum_j e^{x_j} with every x_j moved by d_j, |d_j| <= E_j: y'_i / y_i =
/// e^{d_i} / sum_j y_j e^{d_j}, largest for d_i = E_i and d_j = -E_j elsewhere, smallest the
/// other way round. Exact for the box, in f64 (E capped at 50: beyond, y' is anything in [0, 1]).
std::vector<double> softmaxPropagation(const Tensor& x, const std::vector<double>& ex, int64_t axis,
                                       const Tensor& result) {
  const std::vector<double> xs = hostValues(x), ys = hostValues(result);
  const std::vector<double> e = orZeros(&ex, xs.size());
  std::vector<double> out(xs.size(), 0.0);
  forEachLine(x.shape(), axis, [&](int64_t base, int64_t stride, int64_t len) {
    double m = -INFINITY, z = 0;
    for (int64_t k = 0; k < len; ++k) m = std::max(m, xs[base + k * stride]);
    for (int64_t k = 0; k < len; ++k) z += std::exp(xs[base + k * stride] - m);
    double down = 0, up = 0;  // sum_j y_j e^{-E_j}, sum_j y_j e^{E_j}
    for (int64_t k = 0; k < len; ++k) {
      const int64_t i = base + k * stride;
      const double y = std::exp(xs[i] - m) / z, ei = std::min(e[i], 50.0);
      down += y * std::exp(-ei);
      up += y * std::exp(ei);
    }
    for (int64_t k = 0; k < len; ++k) {
      const int64_t i = base + k * stride;
      const double y = std::exp(xs[i] - m) / z, ei = std::min(e[i], 50.0);
      const double hi = std::exp(ei) / (down - y * std::exp(-ei) + y * std::exp(ei));
      const double lo = std::exp(-ei) / (up - y * std::exp(ei) + y * std::exp(-ei));
      out[i] = std::max(y * std::max(hi - 1, 1 - lo), std::fabs(ys[i] - y));
    }
  });
  return out;
}

/// layer_norm of a row x_k moved by E_k (the mean of E is Em): the mean moves by at most Em,
/// d_k = x_k - mu by Ed_k = E_k + Em, the variance v = mean(d^2) by Ev = mean(2 |d_k| Ed_k +
/// Ed_k^2), so inv = 1 / sqrt(v + eps) lies in [1 / sqrt(v + Ev + eps), 1 / sqrt(max(v - Ev,
/// 0) + eps)], i.e. moves by Einv; y_k = d_k inv by Ed_k (inv + Einv) + |d_k| Einv; then
/// y w by Ey (|w| + Ew) + |y| Ew, and + b by Eb more.
std::vector<double> layerNormPropagation(const Tensor& x, const std::vector<double>& ex,
                                         const Tensor* w, const std::vector<double>* ew,
                                         const Tensor* b, const std::vector<double>* eb, double eps) {
  const std::vector<double> xs = hostValues(x);
  const int64_t n = x.shape().back();
  const std::vector<double> e = orZeros(&ex, xs.size());
  const std::vector<double> ws = w ? hostValues(*w) : std::vector<double>(), wE = orZeros(ew, static_cast<size_t>(n));
  const std::vector<double> bE = orZeros(eb, static_cast<size_t>(n));
  std::vector<double> out(xs.size());
  for (size_t base = 0; base < xs.size(); base += static_cast<size_t>(n)) {
    double mu = 0, em = 0;
    for (int64_t k = 0; k < n; ++k) mu += xs[base + k], em += e[base + k];
    mu /= static_cast<double>(n);
    em /= static_cast<double>(n);
    double v = 0, ev = 0;
    for (int64_t k = 0; k < n; ++k) {
      const double d = xs[base + k] - mu, ed = e[base + k] + em;
      v += d * d;
      ev += 2 * std::fabs(d) * ed + ed * ed;
    }
    v /= static_cast<double>(n);
    ev /= static_cast<double>(n);
    const double inv = 1 / std::sqrt(v + eps);
    const double einv = std::max(inv - 1 / std::sqrt(v + ev + eps), 1 / std::sqrt(std::max(v - ev, 0.0) + eps) - inv);
    for (int64_t k = 0; k < n; ++k) {
      const size_t i = base + static_cast<size_t>(k);
      const double d = xs[i] - mu, ed = e[i] + em, y = d * inv;
      double ey = ed * (inv + einv) + std::fabs(d) * einv;
      if (w) ey = ey * (std::fabs(ws[k]) + wE[k]) + std::fabs(y) * wE[k];
      if (b) ey += bE[k];
      out[i] = ey;
    }
  }
  return out;
}

std::vector<double> matmulPropagation(const Tensor& a, const std::vector<double>& ea,
                                      const Tensor& b, const std::vector<double>& eb) {
  const Shape &sa = a.shape(), &sb = b.shape();
  const int64_t ra = static_cast<int64_t>(sa.size()), rb = static_cast<int64_t>(sb.size());
  const int64_t m = sa[ra - 2], k = sa[ra - 1], n = sb[rb - 1];
  const int64_t batchA = tg::shape_numel(sa) / (m * k), batchB = tg::shape_numel(sb) / (k * n);
  const int64_t batch = std::max(batchA, batchB);
  const int64_t strideA = ra == 2 ? 0 : m * k, strideB = rb == 2 ? 0 : k * n;
  const std::vector<double> xa = hostValues(a), xb = hostValues(b);
  const std::vector<double> da = orZeros(&ea, xa.size()), db = orZeros(&eb, xb.size());
  std::vector<double> out(static_cast<size_t>(batch * m * n));
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t q = 0; q < k; ++q) {
          const size_t ia = static_cast<size_t>(bi * strideA + i * k + q);
          const size_t ib = static_cast<size_t>(bi * strideB + q * n + j);
          acc += da[ia] * std::fabs(xb[ib]) + std::fabs(xa[ia]) * db[ib] + da[ia] * db[ib];
        }
        out[static_cast<size_t>((bi * m + i) * n + j)] = acc;
      }
  return out;
}

}  // namespace tgtest::detail
