//===- RefStructureTest.cpp - Reference layout, reductions, matmul vs naive loops ===//
//
// This file: layout ops, reductions, softmax, layer_norm, matmul, HostTensor conversions and
// the oracle's helpers (RefElementwiseTest.cpp has the elementwise ops). The method:
//
// Every op kind, for every dtype it accepts, on fresh random inputs (one seeded std::mt19937
// per test). The expected values come from naive loops in this file, computed in double, and
// are rounded to the result dtype by tgtest::roundExact() (tests/common/HostValues.h: exact
// arithmetic in double, independent of the bit tricks of tg/Support/Half.h). Inputs are written and results read byte-wise with
// Half.h's conversions, so no conversion of HostTensor is used to produce an expected value.
//
// Tolerances are counted in units in the last place (ulps) of the result dtype, on the integer
// line of its bit patterns (adjacent values differ by 1, across subnormals and up to infinity),
// against the exact double result rounded to the dtype:
//  - 0 ulps where a single correctly rounded operation gives the result (neg, abs, relu, f32
//    add/sub/mul/div/sqrt, casts, layout ops, integer ops, compares);
//  - 1 ulp for bf16/f16 results whose math runs in f32 or f64 and is then rounded to the dtype;
//  - a few ulps for f32 results of the C library's f32 functions, stated per op.
//
//===----------------------------------------------------------------------===//
#include "RefTestSupport.h"

namespace {

using namespace reftest;

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

TEST(RefLayout, BroadcastDimsMaps) {
  // Operand dim i goes to result dim dims[i]; size-1 operand dims repeat. Bytes copied exactly.
  struct Case {
    Shape in;
    std::vector<int64_t> dims;
    Shape out;
  } cases[] = {
      {{4}, {1}, {3, 4}},
      {{3}, {0}, {3, 4}},
      {{}, {}, {2, 3}},
      {{1}, {0}, {7}},
      {{3, 1}, {1, 2}, {2, 3, 5}},
      {{1, 5}, {0, 2}, {4, 3, 5}},
      {{3, 1, 5}, {0, 1, 2}, {3, 4, 5}},
      {{2, 1}, {0, 3}, {2, 3, 4, 6}},
      {{1, 1}, {1, 2}, {2, 1, 3}},
      {{6}, {2}, {1, 2, 6}},
  };
  std::mt19937 rng(501);
  for (const Case& c : cases) {
    for (DType dtype : kAllTypes) {
      std::vector<double> x = uniform(rng, dtype, numelOf(c.in), -100, 100);
      HostTensor input = make(dtype, c.in, x);
      OpAttrs attrs;
      attrs.dims = c.dims;
      attrs.shape = c.out;
      HostTensor out = run(OpKind::Broadcast, attrs, {input});
      std::vector<std::pair<int, int64_t>> src(numelOf(c.out));
      for (int64_t i = 0; i < numelOf(c.out); ++i) {
        std::vector<int64_t> o = unravel(i, c.out), idx(c.in.size());
        for (size_t k = 0; k < c.in.size(); ++k) idx[k] = c.in[k] == 1 ? 0 : o[c.dims[k]];
        src[i] = {0, ravel(idx, c.in)};
      }
      expectCopied(out, c.out, {&input}, src,
                   "broadcast " + tg::format_shape(c.in) + " -> " + tg::format_shape(c.out) +
                       " " + nameOf(dtype));
    }
  }
}

TEST(RefLayout, Reshape) {
  // Same elements in the same row-major order. Bytes exactly.
  std::mt19937 rng(502);
  const std::vector<std::pair<Shape, Shape>> cases{
      {{2, 3, 4}, {4, 6}}, {{2, 3, 4}, {24}}, {{24}, {1, 24, 1}}, {{1}, {}}, {{}, {1, 1}},
      {{6, 1}, {2, 3}}};
  for (const auto& [from, to] : cases) {
    for (DType dtype : kAllTypes) {
      HostTensor input = make(dtype, from, uniform(rng, dtype, numelOf(from), -100, 100));
      OpAttrs attrs;
      attrs.shape = to;
      HostTensor out = run(OpKind::Reshape, attrs, {input});
      std::vector<std::pair<int, int64_t>> src(numelOf(to));
      for (int64_t i = 0; i < numelOf(to); ++i) src[i] = {0, i};
      expectCopied(out, to, {&input}, src,
                   "reshape " + tg::format_shape(from) + " -> " + tg::format_shape(to));
    }
  }
}

TEST(RefLayout, TransposeEveryPermutation) {
  // Result dim i is operand dim perm[i]: every permutation of ranks 2, 3 and 4 (f32), and one
  // permutation per dtype. Bytes exactly.
  std::mt19937 rng(503);
  auto check = [&](const Shape& in, const std::vector<int64_t>& perm, DType dtype) {
    HostTensor input = make(dtype, in, uniform(rng, dtype, numelOf(in), -100, 100));
    Shape outShape;
    for (int64_t p : perm) outShape.push_back(in[p]);
    OpAttrs attrs;
    attrs.perm = perm;
    HostTensor out = run(OpKind::Transpose, attrs, {input});
    std::vector<std::pair<int, int64_t>> src(numelOf(outShape));
    for (int64_t i = 0; i < numelOf(outShape); ++i) {
      std::vector<int64_t> o = unravel(i, outShape), idx(in.size());
      for (size_t k = 0; k < perm.size(); ++k) idx[perm[k]] = o[k];
      src[i] = {0, ravel(idx, in)};
    }
    std::string permText;
    for (int64_t p : perm) permText += std::to_string(p) + " ";
    expectCopied(out, outShape, {&input}, src,
                 "transpose " + tg::format_shape(in) + " perm " + permText + nameOf(dtype));
  };
  for (const Shape& in : {Shape{5, 7}, Shape{2, 3, 4}, Shape{2, 3, 4, 5}}) {
    std::vector<int64_t> perm(in.size());
    std::iota(perm.begin(), perm.end(), 0);
    do check(in, perm, DType::F32);
    while (std::next_permutation(perm.begin(), perm.end()));
  }
  for (DType dtype : kAllTypes) check({3, 1, 4, 2}, {2, 0, 3, 1}, dtype);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// The naive reduction: every input element is added (or maxed) into the output element whose
/// index is its own with the reduced coordinates zeroed, in row-major order, in double (int64
/// for i32).
std::vector<double> naiveReduce(OpKind kind, const std::vector<double>& x, const Shape& shape,
                                const std::vector<int64_t>& axes, DType dtype, Shape& keptShape) {
  keptShape = shape;
  int64_t count = 1;
  for (int64_t a : axes) {
    keptShape[a] = 1;
    count *= shape[a];
  }
  const int64_t outN = numelOf(keptShape);
  const bool isMax = kind == OpKind::ReduceMax, isMin = kind == OpKind::ReduceMin;
  const bool isProd = kind == OpKind::ReduceProd;
  std::vector<double> acc(outN, isMax ? -kInf : isMin ? kInf : isProd ? 1.0 : 0.0);
  std::vector<int64_t> iacc(outN, isMax ? kIntMin : isMin ? kIntMax : isProd ? 1 : 0);
  for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i) {
    std::vector<int64_t> idx = unravel(i, shape);
    for (int64_t a : axes) idx[a] = 0;
    int64_t o = ravel(idx, keptShape);
    if (dtype == DType::I32) {
      int64_t v = static_cast<int64_t>(x[i]);
      iacc[o] = isMax ? std::max(iacc[o], v)
                : isMin ? std::min(iacc[o], v)
                : isProd ? static_cast<int64_t>(wrap32(iacc[o] * v))  // |factors| < 2^31: no overflow
                         : iacc[o] + v;
    } else if (isMax || isMin) {
      acc[o] = (std::isnan(acc[o]) || std::isnan(x[i])) ? kNaN
               : isMax                                 ? std::max(acc[o], x[i])
                                                       : std::min(acc[o], x[i]);
    } else if (isProd) {
      acc[o] *= x[i];
    } else {
      acc[o] += x[i];
    }
  }
  if (dtype == DType::I32) {
    for (int64_t o = 0; o < outN; ++o) acc[o] = wrap32(iacc[o]);
  } else if (kind == OpKind::ReduceMean) {
    for (double& a : acc) a /= static_cast<double>(count);
  }
  return acc;
}

TEST(RefReduce, SumMaxMeanOverAxesSets) {
  // Every subset of the axes of [3, 5, 7] (and of a shape with unit dims), with and without
  // keep_dims, for every accepted dtype. Accumulation is f64 rounded once: f32 1 ulp,
  // bf16/f16 1 ulp, max exact, i32 exact (wrapping: values near 1e9 overflow the sums).
  std::mt19937 rng(601);
  struct Case {
    Shape shape;
    std::vector<std::vector<int64_t>> axesSets;
  } cases[] = {
      {{3, 5, 7}, {{}, {0}, {1}, {2}, {0, 1}, {0, 2}, {1, 2}, {0, 1, 2}}},
      {{1, 4, 1, 3}, {{0}, {1, 3}, {0, 2}, {0, 1, 2, 3}}},
      {{9}, {{0}}},
  };
  for (const Case& c : cases) {
    const int64_t n = numelOf(c.shape);
    for (OpKind kind : {OpKind::ReduceSum, OpKind::ReduceMax, OpKind::ReduceMean, OpKind::ReduceMin,
                        OpKind::ReduceProd}) {
      for (DType dtype : {DType::F32, DType::F16, DType::BF16, DType::I32}) {
        if (kind == OpKind::ReduceMean && dtype == DType::I32) continue;
        // Products: factors near 1 (floats) or small (i32: the product wraps).
        const bool prod = kind == OpKind::ReduceProd;
        std::vector<double> x = dtype == DType::I32 ? uniform(rng, dtype, n, prod ? -40 : -1500000000, prod ? 40 : 1500000000)
                                : prod              ? uniform(rng, dtype, n, 0.5, 1.6)
                                                    : uniform(rng, dtype, n, -10, 10);
        HostTensor input = make(dtype, c.shape, x);
        for (const std::vector<int64_t>& axes : c.axesSets) {
          for (bool keep : {false, true}) {
            OpAttrs attrs;
            attrs.axes = axes;
            attrs.keepDims = keep;
            HostTensor out = run(kind, attrs, {input});
            Shape kept;
            std::vector<double> expected = naiveReduce(kind, x, c.shape, axes, dtype, kept);
            Shape expectedShape;
            for (size_t d = 0; d < c.shape.size(); ++d) {
              bool reduced = std::find(axes.begin(), axes.end(), int64_t(d)) != axes.end();
              if (!reduced) expectedShape.push_back(c.shape[d]);
              else if (keep) expectedShape.push_back(1);
            }
            std::string axesText;
            for (int64_t a : axes) axesText += std::to_string(a) + " ";
            Tol tol = kind == OpKind::ReduceMax || kind == OpKind::ReduceMin ? Tol{0, 0} : Tol{1, 0};
            expectNear(out, dtype, expectedShape, expected, tol,
                       std::string(tg::graph::opName(kind)) + " " + nameOf(dtype) + " " +
                           tg::format_shape(c.shape) + " axes " + axesText +
                           (keep ? "keep_dims" : ""));
          }
        }
      }
    }
  }
}

TEST(RefReduce, IntegerSumWrapsAndMaxOfMinima) {
  // Exact: the i32 sum wraps once at the end, max of INT_MIN values is INT_MIN.
  const Shape shape{2, 3};
  HostTensor x = make(DType::I32, shape, {kIntMax, kIntMax, 2, kIntMin, kIntMin, kIntMin});
  OpAttrs attrs;
  attrs.axes = {1};
  expectNear(run(OpKind::ReduceSum, attrs, {x}), DType::I32, {2},
             {wrap32(int64_t{kIntMax} * 2 + 2), wrap32(int64_t{kIntMin} * 3)}, {}, "i32 sum");
  expectNear(run(OpKind::ReduceMax, attrs, {x}), DType::I32, {2}, {kIntMax, kIntMin}, {},
             "i32 max");
}

TEST(RefReduce, MaxPropagatesNaN) {
  // A NaN makes its own output element NaN and no other; exact elsewhere.
  std::mt19937 rng(602);
  const Shape shape{3, 5, 7};
  for (DType dtype : kFloatTypes) {
    std::vector<double> x = uniform(rng, dtype, numelOf(shape), -10, 10);
    x[ravel({1, 2, 3}, shape)] = kNaN;  // row (1, *, 3) for axes [1]
    x[ravel({2, 0, 0}, shape)] = kNaN;  // first element of a line: NaN must survive later maxes
    HostTensor input = make(dtype, shape, x);
    for (const std::vector<int64_t>& axes :
         std::vector<std::vector<int64_t>>{{1}, {0, 2}, {2}, {0, 1, 2}}) {
      OpAttrs attrs;
      attrs.axes = axes;
      HostTensor out = run(OpKind::ReduceMax, attrs, {input});
      Shape kept;
      std::vector<double> expected = naiveReduce(OpKind::ReduceMax, x, shape, axes, dtype, kept);
      Shape outShape;
      for (int64_t d = 0; d < 3; ++d)
        if (std::find(axes.begin(), axes.end(), d) == axes.end()) outShape.push_back(shape[d]);
      expectNear(out, dtype, outShape, expected, {0, 0}, "reduce_max NaN " + nameOf(dtype));
      if (axes == std::vector<int64_t>{1} && out.defined()) {
        EXPECT_TRUE(std::isnan(load(out, ravel({1, 3}, {3, 7}))));
        EXPECT_TRUE(std::isnan(load(out, ravel({2, 0}, {3, 7}))));
        EXPECT_FALSE(std::isnan(load(out, ravel({1, 2}, {3, 7}))));
      }
    }
  }
}

TEST(RefReduce, MinPropagatesNaNAndIntegerProductsWrap) {
  const Shape shape{2, 3};
  HostTensor f = make(DType::F32, shape, {1.0, kNaN, -2.0, 4.0, -0.5, 3.0});
  OpAttrs attrs;
  attrs.axes = {1};
  HostTensor m = run(OpKind::ReduceMin, attrs, {f});
  EXPECT_TRUE(std::isnan(load(m, 0)));
  EXPECT_EQ(load(m, 1), -0.5);
  HostTensor x = make(DType::I32, shape, {65536, 65536, 3, kIntMin, -1, 1});
  expectNear(run(OpKind::ReduceProd, attrs, {x}), DType::I32, {2}, {0, kIntMin}, {}, "i32 prod wraps");
  expectNear(run(OpKind::ReduceMin, attrs, {x}), DType::I32, {2}, {3, kIntMin}, {}, "i32 min");
}

TEST(RefReduce, ArgMaxArgMinTiesNaNAndSignedZeros) {
  // Ties go to the lowest index, the first NaN wins for both, -0 equals +0; every axis of a
  // rank-3 input against a naive loop, kept dims or not.
  OpAttrs attrs;
  attrs.axes = {0};
  auto index = [&](OpKind kind, std::vector<double> v, DType dtype = DType::F32) {
    HostTensor r = run(kind, attrs, {make(dtype, {static_cast<int64_t>(v.size())}, v)});
    EXPECT_EQ(r.dtype(), DType::I32);
    return r.intAt(0);
  };
  EXPECT_EQ(index(OpKind::ArgMax, {1, 3, 3, 2}), 1);
  EXPECT_EQ(index(OpKind::ArgMin, {2, 1, 5, 1}), 1);
  EXPECT_EQ(index(OpKind::ArgMax, {1, kNaN, 7, kNaN}), 1);
  EXPECT_EQ(index(OpKind::ArgMin, {1, -3, kNaN, kNaN}), 2);
  EXPECT_EQ(index(OpKind::ArgMax, {-0.0, 0.0}), 0);
  EXPECT_EQ(index(OpKind::ArgMin, {0.0, -0.0}), 0);
  EXPECT_EQ(index(OpKind::ArgMax, {-kInf, -kInf}), 0);
  EXPECT_EQ(index(OpKind::ArgMax, {5, kIntMax, kIntMax}, DType::I32), 1);
  EXPECT_EQ(index(OpKind::ArgMin, {kIntMin, 0, kIntMin}, DType::I32), 0);

  std::mt19937 rng(603);
  const Shape shape{4, 5, 6};
  for (DType dtype : {DType::F32, DType::BF16, DType::I32}) {
    std::vector<double> x = uniform(rng, dtype, numelOf(shape), -3, 3);  // bf16, i32: many ties
    HostTensor input = make(dtype, shape, x);
    for (OpKind kind : {OpKind::ArgMax, OpKind::ArgMin})
      for (int64_t axis = 0; axis < 3; ++axis)
        for (bool keep : {false, true}) {
          attrs.axes = {axis};
          attrs.keepDims = keep;
          HostTensor out = run(kind, attrs, {input});
          Shape kept = shape;
          kept[axis] = 1;
          EXPECT_EQ(out.shape().size(), keep ? 3u : 2u);
          for (int64_t o = 0; o < numelOf(kept); ++o) {
            std::vector<int64_t> idx = unravel(o, kept);
            int64_t best = 0;
            double bestValue = 0;
            for (int64_t k = 0; k < shape[axis]; ++k) {
              idx[axis] = k;
              const double v = x[ravel(idx, shape)];
              if (k == 0 || (kind == OpKind::ArgMax ? v > bestValue : v < bestValue)) best = k, bestValue = v;
            }
            ASSERT_EQ(out.intAt(o), best) << tg::graph::opName(kind) << " " << nameOf(dtype) << " axis " << axis
                                          << " output " << o;
          }
        }
  }
}

//===----------------------------------------------------------------------===//
// Softmax and layer_norm
//===----------------------------------------------------------------------===//

TEST(RefSoftmax, EachAxisOfRank3) {
  // exp(x - max) / sum along the axis, naive in double. The kernel takes exp of an f32 x - max
  // (|x - max| <= 8 here, rounded to 2^-22: up to ~4 ulp of the result, plus expf's error), so
  // f32 8 ulp; bf16/f16 1 ulp (their x - max is exact in f32).
  std::mt19937 rng(701);
  const Shape shape{3, 5, 7};
  const int64_t n = numelOf(shape);
  for (DType dtype : kFloatTypes) {
    std::vector<double> x = uniform(rng, dtype, n, -4, 4);
    HostTensor input = make(dtype, shape, x);
    for (int64_t axis = 0; axis < 3; ++axis) {
      OpAttrs attrs;
      attrs.axis = axis;
      HostTensor out = run(OpKind::Softmax, attrs, {input});
      std::vector<double> expected(n);
      for (int64_t i = 0; i < n; ++i) {
        std::vector<int64_t> idx = unravel(i, shape);
        double m = -kInf;
        for (int64_t k = 0; k < shape[axis]; ++k) {
          idx[axis] = k;
          m = std::max(m, x[ravel(idx, shape)]);
        }
        double sum = 0;
        for (int64_t k = 0; k < shape[axis]; ++k) {
          idx[axis] = k;
          sum += std::exp(x[ravel(idx, shape)] - m);
        }
        expected[i] = std::exp(x[i] - m) / sum;
      }
      expectNear(out, dtype, shape, expected, dtype == DType::F32 ? Tol{8, 0} : Tol{1, 0},
                 "softmax axis " + std::to_string(axis) + " " + nameOf(dtype));
    }
  }
}

TEST(RefLayerNorm, WithAndWithoutWeightAndBias) {
  // (x - mean) / sqrt(var + eps) * w + b over the last dim, biased variance, naive in double.
  // f64 statistics rounded once: 1 ulp for every dtype (or 1e-12 absolute, for f32 results
  // that the bias cancels to near zero, where double-level differences exceed an f32 ulp).
  std::mt19937 rng(801);
  for (const Shape& shape : {Shape{4, 6, 33}, Shape{64}, Shape{5, 1}}) {
    const int64_t len = shape.back(), n = numelOf(shape);
    for (DType dtype : kFloatTypes) {
      std::vector<double> x = uniform(rng, dtype, n, -4, 6);
      std::vector<double> w = uniform(rng, dtype, len, -2, 2), b = uniform(rng, dtype, len, -1, 1);
      for (bool hasWeight : {false, true}) {
        for (bool hasBias : {false, true}) {
          OpAttrs attrs;
          attrs.hasWeight = hasWeight;
          attrs.hasBias = hasBias;
          attrs.epsilon = 1e-5;
          std::vector<HostTensor> operands{make(dtype, shape, x)};
          if (hasWeight) operands.push_back(make(dtype, {len}, w));
          if (hasBias) operands.push_back(make(dtype, {len}, b));
          HostTensor out = run(OpKind::LayerNorm, attrs, operands);
          std::vector<double> expected(n);
          for (int64_t row = 0; row < n / len; ++row) {
            double mean = 0, var = 0;
            for (int64_t k = 0; k < len; ++k) mean += x[row * len + k];
            mean /= len;
            for (int64_t k = 0; k < len; ++k)
              var += (x[row * len + k] - mean) * (x[row * len + k] - mean);
            var /= len;
            for (int64_t k = 0; k < len; ++k) {
              double y = (x[row * len + k] - mean) / std::sqrt(var + attrs.epsilon);
              if (hasWeight) y *= w[k];
              if (hasBias) y += b[k];
              expected[row * len + k] = y;
            }
          }
          expectNear(out, dtype, shape, expected,
                     {1, dtype == DType::F32 ? 1e-12 : 0.0},
                     "layer_norm " + tg::format_shape(shape) + " " + nameOf(dtype) +
                         (hasWeight ? " weight" : "") + (hasBias ? " bias" : ""));
        }
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

TEST(RefMatmul, TransposesBatchesSharedOperandsOddSizes) {
  // Naive triple loop in double over the logical (transposed) operands. f64 accumulation
  // rounded once: 1 ulp for every dtype, plus 1e-12 * K absolute for sums that cancel to ~0.
  std::mt19937 rng(901);
  struct Case {
    Shape batchA, batchB;  // batch dims; empty = rank 2
    int64_t m, k, n;
  } cases[] = {
      {{}, {}, 1, 1, 1},    {{}, {}, 17, 33, 65}, {{}, {}, 4, 1, 6},   {{2}, {2}, 1, 1, 1},
      {{2, 3}, {2, 3}, 5, 7, 3}, {{}, {4}, 6, 9, 5}, {{4}, {}, 6, 9, 5}, {{2, 2}, {}, 3, 8, 2},
      {{}, {3, 2}, 2, 5, 7},
  };
  for (const Case& c : cases) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        for (DType dtype : kFloatTypes) {
          Shape sa = c.batchA, sb = c.batchB;
          sa.push_back(ta ? c.k : c.m);
          sa.push_back(ta ? c.m : c.k);
          sb.push_back(tb ? c.n : c.k);
          sb.push_back(tb ? c.k : c.n);
          std::vector<double> a = uniform(rng, dtype, numelOf(sa), -2, 2);
          std::vector<double> b = uniform(rng, dtype, numelOf(sb), -2, 2);
          OpAttrs attrs;
          attrs.transposeA = ta;
          attrs.transposeB = tb;
          HostTensor out = run(OpKind::Matmul, attrs, {make(dtype, sa, a), make(dtype, sb, b)});
          Shape batch = c.batchA.size() >= c.batchB.size() ? c.batchA : c.batchB;
          const int64_t batches = numelOf(batch);
          const int64_t strideA = c.batchA.empty() ? 0 : c.m * c.k;
          const int64_t strideB = c.batchB.empty() ? 0 : c.k * c.n;
          std::vector<double> expected(batches * c.m * c.n);
          for (int64_t bi = 0; bi < batches; ++bi)
            for (int64_t i = 0; i < c.m; ++i)
              for (int64_t j = 0; j < c.n; ++j) {
                double acc = 0;
                for (int64_t p = 0; p < c.k; ++p) {
                  double av = ta ? a[bi * strideA + p * c.m + i] : a[bi * strideA + i * c.k + p];
                  double bv = tb ? b[bi * strideB + j * c.k + p] : b[bi * strideB + p * c.n + j];
                  acc += av * bv;
                }
                expected[(bi * c.m + i) * c.n + j] = acc;
              }
          Shape outShape = batch;
          outShape.push_back(c.m);
          outShape.push_back(c.n);
          expectNear(out, dtype, outShape, expected, {1, 1e-12 * c.k},
                     "matmul " + tg::format_shape(sa) + (ta ? "^T" : "") + " @ " +
                         tg::format_shape(sb) + (tb ? "^T" : "") + " " + nameOf(dtype));
        }
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// HostTensor's documented conversions (the constructors every kernel result goes through)
//===----------------------------------------------------------------------===//

TEST(RefHostTensor, FilledFromFloatsFromIntsConvertAsDocumented) {
  // HostTensor.h: round-to-nearest-even for bf16/f16, truncation toward zero with saturation
  // for i32 (NaN: 0), != 0 for bool, for filled(), fromFloats() and fromInts() alike. Exact.
  auto expectValues = [](const HostTensor& t, DType dtype, const std::vector<double>& expected,
                         const std::string& what) {
    expectNear(t, dtype, {static_cast<int64_t>(expected.size())}, expected, {0, 0}, what);
  };
  std::mt19937 rng(1201);
  const std::vector<double> r = uniform(rng, DType::F32, 1, -1e6, 1e6);
  struct {
    DType dtype;
    double value, expected;
  } fills[] = {
      {DType::I32, 3e9, kIntMax},     {DType::I32, -3e9, kIntMin},
      {DType::I32, kNaN, 0},          {DType::I32, -2.7, -2},
      {DType::I32, 2147483647.5, kIntMax}, {DType::I32, 16777217.0, 16777217},
      {DType::I32, r[0], std::trunc(r[0])},
      {DType::Bool, 0.5, 1},          {DType::Bool, -0.0, 0},
      {DType::F16, 65520, kInf},      {DType::BF16, 1 + std::ldexp(1, -8), 1},
      {DType::F32, r[0], r[0]},
  };
  for (const auto& f : fills)
    expectValues(HostTensor::filled(f.dtype, {3}, f.value), f.dtype,
                 std::vector<double>(3, f.expected),
                 "filled " + nameOf(f.dtype) + " " + std::to_string(f.value));
  const std::vector<float> floats{2.9f, -2.9f, 3e9f, std::nanf(""), -INFINITY, 0.5f};
  expectValues(HostTensor::fromFloats(DType::I32, {6}, floats), DType::I32,
               {2, -2, kIntMax, 0, kIntMin, 0}, "fromFloats i32");
  expectValues(HostTensor::fromFloats(DType::Bool, {6}, floats), DType::Bool, {1, 1, 1, 1, 1, 1},
               "fromFloats bool");
  const std::vector<int32_t> ints{16842753, 257, -259, 65519, 65520, 2049, kIntMax};
  expectValues(HostTensor::fromInts(DType::BF16, {7}, ints), DType::BF16,
               {16908288, 256, -260, 65536, 65536, 2048, 2147483648.0}, "fromInts bf16");
  expectValues(HostTensor::fromInts(DType::F16, {7}, ints), DType::F16,
               {kInf, 257, -259, 65504, kInf, 2048, kInf}, "fromInts f16");
  expectValues(HostTensor::fromInts(DType::F32, {7}, ints), DType::F32,
               {16842752, 257, -259, 65519, 65520, 2049, 2147483648.0}, "fromInts f32");
}

//===----------------------------------------------------------------------===//
// The oracle's own helpers
//===----------------------------------------------------------------------===//

TEST(RefOracle, RoundExactAndOrdinal) {
  // The test's own rounding and ulp distance, against values worked out by hand, so that a
  // wrong oracle cannot hide a wrong kernel.
  EXPECT_EQ(roundExact(DType::BF16, 1 + std::ldexp(1, -8)), 1.0);
  EXPECT_EQ(roundExact(DType::BF16, 1 + std::ldexp(1, -8) + 1e-9), 1 + std::ldexp(1, -7));
  EXPECT_EQ(roundExact(DType::F16, 65519.0), 65504.0);
  EXPECT_EQ(roundExact(DType::F16, 65520.0), kInf);
  EXPECT_EQ(roundExact(DType::F16, std::ldexp(1, -25)), 0.0);
  EXPECT_EQ(roundExact(DType::F16, 3 * std::ldexp(1, -25)), std::ldexp(1, -23));
  EXPECT_EQ(roundExact(DType::F32, 16777217.0), 16777216.0);
  EXPECT_EQ(roundExact(DType::BF16, 16842753.0), 16908288.0);
  EXPECT_EQ(ordinal(DType::F16, 1.0) - ordinal(DType::F16, 1 - std::ldexp(1, -11)), 1);
  EXPECT_EQ(ordinal(DType::BF16, 0.0), ordinal(DType::BF16, -0.0));
  EXPECT_EQ(ordinal(DType::F32, kInf) - ordinal(DType::F32, std::numeric_limits<float>::max()),
            1);
  EXPECT_EQ(ordinal(DType::F16, std::ldexp(1, -24)) - ordinal(DType::F16, -std::ldexp(1, -24)),
            2);
}


}  // namespace
