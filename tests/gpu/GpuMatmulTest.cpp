//===- GpuMatmulTest.cpp - Matmul and fused epilogues against a float64 reference ===//
//
// Every test skips without a GPU. Inputs are seeded randn tensors created on the GPU (never
// zeros); the reference reads them back with to_vector (the exact values the kernels see) and
// computes C = op(A) @ op(B) in double, then the epilogue in double.
//
//  GpuMatmul.SquareShapes           64, 128, 256, 1024; bf16, f16, f32.
//  GpuMatmul.RaggedShapes           512x1024x256, 17x33x65, 1x1x1, 129x64x200 (M x K x N).
//  GpuMatmul.SkinnyShapes           M = 1 (1x4096x4096), N = 1 (4096x4096x1), K = 1; two calls
//                                   give the same bits (no order-dependent split-K).
//  GpuMatmul.TransposedOperands     A^T, B^T, both, and X @ W^T with W [N, K] (a linear layer).
//  GpuMatmul.GemvShapes             the gemv path's forms: x @ w^T with 1 to 16 rows of x (x
//                                   stored [M, K] or [K, M]), A @ x with 1 to 5 columns (x
//                                   stored [K, N] or [N, K]), batches with either operand
//                                   shared, K not a multiple of 16 bytes (element loads),
//                                   K shorter than a chunk a thread.
//  GpuMatmul.GemvReadsACacheWindowInPlace  q @ keys^T with keys a layer's window of a cache:
//                                   values, and one kernel (no copy of the window).
//  GpuMatmul.BatchedAndBroadcast    [3,65,129] @ [3,129,33]; [2,256,128] @ [128,64] (B shared).
//  GpuMatmul.OverDynamicRowsOneCompileServesEverySize  (issue 18) gelu(X @ W^T + b) and
//                                   X @ W^T + R compiled once for X [tokens, K], tokens in
//                                   [1, 8192] (bf16, f32 as TF32), and X [batch, seq, K] @ W^T
//                                   + b with both dynamic: at sizes 1, primes, the edges of
//                                   128-row tiles and the range's top, direct and replayed as a
//                                   CUDA graph whose tensor maps and grid change in place; a
//                                   layer of 1024 columns whose guarded variant (128 x 128 tiles
//                                   up to 3,072 rows) the graph switches to and from.
//  GpuMatmul.LinearGeluIsOneKernel  gelu(X @ W^T + b), both gelu formulas: values, and one
//                                   kernel per call (the epilogue fused into the GEMM); also
//                                   with 4 rows of X (the gemv path's epilogue).
//  GpuMatmul.OtherEpilogues         relu, silu (p * sigmoid(p)), + residual, * 0.5, and an f32
//                                   (TF32) matmul cast to bf16: values only.
// 16-bit matmuls without a transpose of a skinny operand also assert one kernel per call.
//
// The tolerance of element (i, j), with S_ij = sum_k |a_ik| |b_kj| (in double):
//   |got - ref| <= outUlps * ulp(out, |ref|)                 rounding at the store
//                + L * (acc * S_ij                           accumulation
//                       + interUlps * ulp(in, |c_ij|))       C stored before an unfused epilogue
//                + ulp(f32, |ref|)                           the reference is compared as f32
//   acc = max(K * 2^-23, 1e-6) for bf16/f16 inputs: their products are exact in f32, and each of
//         the K f32 additions errs by at most 2^-23 relative even when tensor cores truncate
//         instead of rounding (the classical K u bound with u = 2^-23).
//   acc = 2^-9 + K * 2^-23 for f32 inputs, whose default path is TF32: each input keeps 10
//         mantissa bits (relative error < 2^-10 when the low bits are truncated, as the tensor
//         cores do with raw f32 bits), so each product errs by < 2^-9 relative.
//   outUlps = 1 for bf16/f16 results, 0 for f32; 2 after a nonlinear epilogue (the second ulp
//         covers the function's approximation: tanh.approx <= 2^-10.9 relative for bf16).
//   L = max |g'| of the epilogue g (1 for a bare matmul, relu and + residual; 0.5 for * 0.5;
//         1.13 for both gelus, 1.10 for silu): an error e in its input moves g by <= L e.
//   interUlps = 1 for a 16-bit matmul followed by an epilogue (until the epilogue is fused, C is
//         rounded to bf16 in memory first), else 0.
// Norm-wise: ||got - ref|| / ||ref|| <= 1e-2 (bf16), 2e-3 (f16), 2e-3 (f32 through TF32).
//
//===----------------------------------------------------------------------===//
#include "GpuCompare.h"
#include "GpuPlan.h"

#include "tg/CodeGen/Tuning.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <iomanip>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace tggpu;
using tg::Shape;

//===----------------------------------------------------------------------===//
// The float64 reference
//===----------------------------------------------------------------------===//

/// One matmul problem: A is [batch?, M, K] ([batch?, K, M] when transA), B is [batch?, K, N]
/// ([batch?, N, K] when transB); an operand without the batch dim is shared by every batch.
struct Problem {
  int64_t m, k, n;
  bool transA = false, transB = false;
  int64_t batch = 0;  ///< 0: rank-2 operands
  bool batchedA = true, batchedB = true;

  Shape shapeA() const { return withBatch(batchedA, transA ? Shape{k, m} : Shape{m, k}); }
  Shape shapeB() const { return withBatch(batchedB, transB ? Shape{n, k} : Shape{k, n}); }
  Shape shapeC() const { return withBatch(true, {m, n}); }
  int64_t batches() const { return std::max<int64_t>(1, batch); }
  std::string str(DType d) const {
    return std::string(tg::dtype_name(d)) + tg::format_shape(shapeA()) + (transA ? "^T" : "") + " @ " +
           tg::format_shape(shapeB()) + (transB ? "^T" : "");
  }

 private:
  Shape withBatch(bool batched, Shape s) const {
    if (batch > 0 && batched) s.insert(s.begin(), batch);
    return s;
  }
};

/// C = op(A) @ op(B) and S = |op(A)| @ |op(B)|, both in double, row-major like shapeC().
struct Reference {
  std::vector<double> c, s;
};

/// Runs body(0 .. n-1) on every core: the 1024^3 reference would otherwise dominate the test.
void parallelFor(int64_t n, const std::function<void(int64_t)>& body) {
  const int64_t threads = std::min<int64_t>(n, std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<int64_t> next{0};
  std::vector<std::thread> pool;
  for (int64_t t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (int64_t i; (i = next++) < n;) body(i);
    });
  for (std::thread& t : pool) t.join();
}

Reference referenceMatmul(const Problem& p, const std::vector<float>& a, const std::vector<float>& b) {
  const int64_t m = p.m, k = p.k, n = p.n, batches = p.batches();
  // op(B) of every batch as double [K, N] rows, so the inner loop is contiguous.
  const int64_t bBatches = p.batch > 0 && p.batchedB ? batches : 1;
  std::vector<double> opB(static_cast<size_t>(bBatches * k * n));
  for (int64_t z = 0; z < bBatches; ++z)
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < n; ++j)
        opB[(z * k + kk) * n + j] = b[z * k * n + (p.transB ? j * k + kk : kk * n + j)];
  Reference r;
  r.c.assign(static_cast<size_t>(batches * m * n), 0.0);
  r.s.assign(r.c.size(), 0.0);
  parallelFor(batches * m, [&](int64_t row) {
    const int64_t z = row / m, i = row % m;
    const int64_t aBase = p.batch > 0 && p.batchedA ? z * m * k : 0;
    const double* bz = &opB[(bBatches > 1 ? z : 0) * k * n];
    double* c = &r.c[row * n];
    double* s = &r.s[row * n];
    for (int64_t kk = 0; kk < k; ++kk) {
      const double aik = a[aBase + (p.transA ? kk * m + i : i * k + kk)];
      for (int64_t j = 0; j < n; ++j) {
        c[j] += aik * bz[kk * n + j];
        s[j] += std::fabs(aik) * std::fabs(bz[kk * n + j]);
      }
    }
  });
  return r;
}

//===----------------------------------------------------------------------===//
// Tolerances (the rule is in the file header)
//===----------------------------------------------------------------------===//

double accumulationFactor(DType in, int64_t k) {
  const double perAdd = std::ldexp(static_cast<double>(k), -23);
  return in == DType::F32 ? std::ldexp(1.0, -9) + perAdd : std::max(perAdd, 1e-6);
}

double normBound(DType out) { return out == DType::BF16 ? 1e-2 : 2e-3; }

/// The epilogue applied to C: its value in double, and L = max |g'|.
struct Epilogue {
  std::string name;
  std::function<double(double c, int64_t i, int64_t j)> ref;  ///< i: flat row, j: column
  double lipschitz = 1;
  bool nonlinear = false;
};

const Epilogue kIdentity{"none", [](double c, int64_t, int64_t) { return c; }, 1, false};

/// Compares `got` with `want` (double, shape p.shapeC()) under the file header's rule.
void expectMatches(const Tensor& got, const Problem& p, DType in, DType out, const Reference& r,
                   const std::vector<double>& want, const Epilogue& e) {
  ASSERT_EQ(got.device(), Device::CUDA);
  ASSERT_EQ(got.dtype(), out);
  ASSERT_EQ(got.shape(), p.shapeC());
  const double acc = accumulationFactor(in, p.k);
  const bool epilogue = e.name != "none";
  const double outUlps = out == DType::F32 ? 0 : e.nonlinear ? 2 : 1;
  const double interUlps = epilogue && in != DType::F32 ? 1 : 0;
  auto bound = [&](int64_t idx, double) {
    const size_t x = static_cast<size_t>(idx);
    const double y = std::fabs(want[x]), c = std::fabs(r.c[x]);
    const double inputErr = acc * r.s[x] + interUlps * ulpOf(in, c) + (epilogue ? ulpOf(DType::F32, c) : 0);
    return outUlps * ulpOf(out, y) + e.lipschitz * inputErr + ulpOf(DType::F32, y);
  };
  std::ostringstream rule;
  rule << std::setprecision(3) << tg::dtype_name(out) << " result, epilogue " << e.name << ": " << outUlps
       << " ulp(out) + " << e.lipschitz << " x (" << acc << " S_ij" << (interUlps ? " + 1 ulp(in, |C|)" : "")
       << ") + 1 ulp(f32); norm " << normBound(out);
  std::vector<float> wantF(want.begin(), want.end());
  compare(tg::cast(got.to(Device::CPU), DType::F32), tg::from_vector(wantF, p.shapeC(), DType::F32, Device::CPU),
          bound, normBound(out), rule.str());
}

//===----------------------------------------------------------------------===//
// Plain matmuls
//===----------------------------------------------------------------------===//

/// Runs op(A) @ op(B) for `p` through tg::jit on CUDA inputs and checks the values; for 16-bit
/// inputs also that it is one kernel when `oneKernel`. Returns the result.
Tensor checkMatmul(const Problem& p, DType d, uint64_t seed, bool oneKernel = true) {
  SCOPED_TRACE(p.str(d));
  Tensor a = tg::randn(p.shapeA(), d, seed, Device::CUDA);
  Tensor b = tg::randn(p.shapeB(), d, seed + 1, Device::CUDA);
  const bool ta = p.transA, tb = p.transB;
  // The transposes are written as the user would; the canonicalizer turns them into the
  // matmul's transpose_a / transpose_b, so the kernel reads the operands in place.
  auto f = tg::jit([ta, tb](const Tensor& x, const Tensor& y) {
    return tg::matmul(ta ? tg::transpose(x, -2, -1) : x, tb ? tg::transpose(y, -2, -1) : y);
  });
  Tensor got = f(a, b);
  const Reference r = referenceMatmul(p, a.to_vector<float>(), b.to_vector<float>());
  expectMatches(got, p, d, d, r, r.c, kIdentity);
  const tg::JitReport report = f.report();
  EXPECT_EQ(report.graphs.size(), 1u);
  if (oneKernel && d != DType::F32 && !report.graphs.empty()) {
    EXPECT_EQ(report.graphs[0].kernels, 1u) << "a 16-bit matmul should be a single kernel";
  }
  return got;
}

constexpr DType kDtypes[] = {DType::BF16, DType::F16, DType::F32};

TEST(GpuMatmul, SquareShapes) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  for (int64_t s : {64, 128, 256, 1024})
    for (DType d : kDtypes) checkMatmul({.m = s, .k = s, .n = s}, d, 100 + s);
}

TEST(GpuMatmul, RaggedShapes) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  const Problem problems[] = {{.m = 512, .k = 1024, .n = 256},
                              {.m = 17, .k = 33, .n = 65},
                              {.m = 1, .k = 1, .n = 1},
                              {.m = 129, .k = 64, .n = 200}};
  uint64_t seed = 200;
  for (const Problem& p : problems)
    for (DType d : kDtypes) checkMatmul(p, d, seed += 2);
}

TEST(GpuMatmul, SkinnyShapes) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  // M = 1 (a vector times a matrix), N = 1 (a matrix times a vector), K = 1 (an outer product):
  // the cases a GEMV path or split-K serves. Kernel counts are left to the implementation.
  const Problem problems[] = {{.m = 1, .k = 4096, .n = 4096},
                              {.m = 4096, .k = 4096, .n = 1},
                              {.m = 1000, .k = 1, .n = 1000}};
  uint64_t seed = 300;
  for (const Problem& p : problems)
    for (DType d : kDtypes) {
      Tensor first = checkMatmul(p, d, seed += 2, /*oneKernel=*/false);
      // The same inputs again: a split-K that combined partials in arrival order would differ.
      Tensor a = tg::randn(p.shapeA(), d, seed, Device::CUDA), b = tg::randn(p.shapeB(), d, seed + 1, Device::CUDA);
      auto f = tg::jit([](const Tensor& x, const Tensor& y) { return tg::matmul(x, y); });
      std::string why;
      EXPECT_TRUE(sameBits(f(a, b), f(a, b), why)) << p.str(d) << ": repeated calls differ: " << why;
      EXPECT_TRUE(sameBits(f(a, b), first, why)) << p.str(d) << ": " << why;
    }
}

TEST(GpuMatmul, TransposedOperands) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  const Problem problems[] = {{.m = 256, .k = 128, .n = 192, .transA = true},
                              {.m = 256, .k = 128, .n = 192, .transB = true},
                              {.m = 256, .k = 128, .n = 192, .transA = true, .transB = true},
                              {.m = 100, .k = 72, .n = 200, .transA = true},
                              {.m = 100, .k = 72, .n = 200, .transB = true},
                              {.m = 512, .k = 1024, .n = 256, .transB = true},  // X @ W^T
                              {.m = 33, .k = 17, .n = 65, .transA = true, .transB = true}};
  uint64_t seed = 400;
  for (const Problem& p : problems)
    for (DType d : kDtypes) checkMatmul(p, d, seed += 2);
}

// Matmuls bound by one operand's bytes (tg/Dialect/Gemv.h): the path's every layout of the
// vectors, its batches and its element-load fallback. (The path each takes is checked on the
// CPU: CodegenCompileTest, select-matmul.mlir.)
TEST(GpuMatmul, GemvShapes) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  const Problem problems[] = {
      {.m = 1, .k = 4096, .n = 4096, .transB = true},                  // a decode step's linear layer
      {.m = 8, .k = 2048, .n = 512, .transB = true},                   // 8 vectors
      {.m = 16, .k = 512, .n = 1000, .transB = true},                  // 16 (f32; 16-bit: tensor cores)
      {.m = 3, .k = 1000, .n = 300, .transB = true},                   // K = 1000: 16-byte chunks for f32 only
      {.m = 8, .k = 512, .n = 700, .transA = true, .transB = true},    // x stored [K, M]
      {.m = 1, .k = 24, .n = 100, .transB = true},                     // a row of 1-3 chunks
      {.m = 2048, .k = 2048, .n = 1},                                  // A @ x
      {.m = 1000, .k = 256, .n = 4},                                   // x [K, 4]: k-major chunks
      {.m = 777, .k = 130, .n = 5, .transB = true},                    // x stored [N, K], K = 130
      {.m = 4, .k = 128, .n = 640, .transB = true, .batch = 4},        // decode attention scores
      {.m = 4, .k = 256, .n = 300, .transB = true, .batch = 3, .batchedB = false},  // w shared
      {.m = 64, .k = 128, .n = 2, .batch = 2, .batchedA = false}};     // A shared
  uint64_t seed = 450;
  for (const Problem& p : problems)
    for (DType d : kDtypes) checkMatmul(p, d, seed += 2);
}

// f32 with both operands K-major (x @ w^T) runs on Hopper's wgmma as TF32: the plan says so
// (on an sm_90a GPU without TG_MATMUL_PATH), and the values meet the TF32 tolerance for
// ragged M, N and K (K = 72: the last 32-element K-block is partly outside, zero-filled by
// TMA), a batch, a broadcast operand, one 128 x 256 tile per SM and a K of several blocks.
TEST(GpuMatmul, Tf32LinearOnWgmma) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  tg::rt::Gpu& gpu = *tg::rt::Gpu::get();
  const bool wgmma = gpu.info().arch() == "sm_90a" && tg::codegen::tuningFromEnvironment().matmulPath.empty();
  const Problem problems[] = {{.m = 256, .k = 128, .n = 192, .transB = true},
                              {.m = 100, .k = 72, .n = 200, .transB = true},
                              {.m = 2048, .k = 512, .n = 2048, .transB = true},
                              {.m = 96, .k = 256, .n = 320, .transB = true, .batch = 3},
                              {.m = 96, .k = 256, .n = 320, .transB = true, .batch = 2, .batchedB = false}};
  uint64_t seed = 700;
  for (const Problem& p : problems) {
    SCOPED_TRACE(p.str(DType::F32));
    const std::string ir = tg::jit([](const Tensor& x, const Tensor& w) {
                             return tg::matmul(x, tg::transpose(w, -2, -1));
                           }).trace_ir(tg::TensorSpec{p.shapeA(), DType::F32}, tg::TensorSpec{p.shapeB(), DType::F32});
    const tg::rt::Plan plan = planFor(ir, gpu);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.str();
    if (wgmma) {
      EXPECT_NE(plan.kernels[0].summary.find("wgmma TF32"), std::string::npos) << plan.str();
    }
    checkMatmul(p, DType::F32, seed += 2);
  }
}

// f32 with an MN-major operand (A @ B with B stored [K, N]; A stored [K, M]) on sm_90a: each
// such operand is copied to K-major by the tiled transpose kernel, then the product runs on
// wgmma as TF32 (one kernel per copy, then the gemm), within the TF32 tolerance. Too small a
// problem stays on mma.sync, one kernel.
TEST(GpuMatmul, Tf32MnMajorOperandsAreCopiedForWgmma) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  tg::rt::Gpu& gpu = *tg::rt::Gpu::get();
  const bool sm90 = gpu.info().arch() == "sm_90a" && tg::codegen::tuningFromEnvironment().matmulPath.empty();
  struct Case {
    Problem p;
    size_t copies;  ///< operands copied on sm_90a (0: too small a problem)
  };
  const Case cases[] = {{{.m = 1024, .k = 512, .n = 1024}, 1},
                        {{.m = 520, .k = 300, .n = 1000, .transA = true}, 2},  // A and B
                        {{.m = 1000, .k = 260, .n = 600, .transA = true, .transB = true}, 1},
                        {{.m = 384, .k = 256, .n = 512, .batch = 3}, 1},
                        {{.m = 512, .k = 256, .n = 512, .batch = 2, .batchedA = false}, 1},
                        {{.m = 256, .k = 128, .n = 192}, 0}};
  uint64_t seed = 800;
  for (const Case& c : cases) {
    const Problem& p = c.p;
    SCOPED_TRACE(p.str(DType::F32));
    const bool ta = p.transA, tb = p.transB;
    auto fn = [ta, tb](const Tensor& x, const Tensor& y) {
      return tg::matmul(ta ? tg::transpose(x, -2, -1) : x, tb ? tg::transpose(y, -2, -1) : y);
    };
    const tg::rt::Plan plan =
        planFor(tg::jit(fn).trace_ir(tg::TensorSpec{p.shapeA(), DType::F32}, tg::TensorSpec{p.shapeB(), DType::F32}), gpu);
    const size_t copies = sm90 ? c.copies : 0;
    EXPECT_EQ(plan.kernels.size(), copies + 1) << plan.str();
    if (copies > 0 && plan.kernels.size() == copies + 1) {
      for (size_t i = 0; i < copies; ++i)
        EXPECT_NE(plan.kernels[i].summary.find("transpose"), std::string::npos) << plan.str();
      EXPECT_NE(plan.kernels[copies].summary.find("wgmma TF32"), std::string::npos) << plan.str();
    }
    checkMatmul(p, DType::F32, seed += 2);
  }
  // x^T @ x: both operands are x, stored [K, M]; one copy (x^T) serves both.
  const Problem p{.m = 1024, .k = 512, .n = 1024, .transA = true};
  SCOPED_TRACE("x^T @ x, x " + tg::format_shape(p.shapeA()));
  auto gram = [](const Tensor& x) { return tg::matmul(tg::transpose(x, -2, -1), x); };
  const tg::rt::Plan plan = planFor(tg::jit(gram).trace_ir(tg::TensorSpec{p.shapeA(), DType::F32}), gpu);
  EXPECT_EQ(plan.kernels.size(), sm90 ? 2u : 1u) << plan.str();
  Tensor x = tg::randn(p.shapeA(), DType::F32, seed + 2, Device::CUDA);
  const std::vector<float> xv = x.to_vector<float>();
  const Reference r = referenceMatmul(p, xv, xv);
  expectMatches(tg::jit(gram)(x), p, DType::F32, DType::F32, r, r.c, kIdentity);
}

// A gemv reads a layer's window of a [layers, heads, positions, dim] cache in place (no copy
// kernel; tg-select-matmul moves the slice into the gemm): every layer's window, on the
// CUDA-core (2 vectors) and tensor-core (4 vectors) kernels, bf16 and f32.
TEST(GpuMatmul, GemvReadsACacheWindowInPlace) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  uint64_t seed = 480;
  for (DType d : {DType::BF16, DType::F32})
    for (int64_t m : {2, 4}) {
      Tensor cache = tg::randn({3, 2, 40, 64}, d, seed += 2, Device::CUDA);
      Tensor q = tg::randn({2, m, 64}, d, seed + 1, Device::CUDA);
      for (int64_t layer = 0; layer < 3; ++layer) {
        auto f = tg::jit([layer](const Tensor& x, const Tensor& c) {
          Tensor keys = tg::reshape(tg::slice(c, 0, layer, layer + 1), {2, 40, 64});
          return tg::matmul(x, tg::transpose(keys, 1, 2));
        });
        const Problem p{.m = m, .k = 64, .n = 40, .transB = true, .batch = 2};
        SCOPED_TRACE(p.str(d) + " from layer " + std::to_string(layer));
        Tensor window = tg::reshape(tg::slice(cache.to(Device::CPU), 0, layer, layer + 1), {2, 40, 64});
        const Reference r = referenceMatmul(p, q.to_vector<float>(), window.to_vector<float>());
        expectMatches(f(q, cache), p, d, d, r, r.c, kIdentity);
        const tg::JitReport report = f.report();
        ASSERT_EQ(report.graphs.size(), 1u);
        EXPECT_EQ(report.graphs[0].kernels, 1u) << "the window is read in place, not copied first";
      }
    }
}

TEST(GpuMatmul, BatchedAndBroadcast) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  const Problem problems[] = {
      {.m = 65, .k = 129, .n = 33, .batch = 3},
      {.m = 256, .k = 128, .n = 64, .batch = 2, .batchedB = false},               // B shared
      {.m = 65, .k = 129, .n = 33, .transA = true, .transB = true, .batch = 3},  // both ^T
      {.m = 256, .k = 128, .n = 64, .transB = true, .batch = 2, .batchedB = false}};
  uint64_t seed = 500;
  for (const Problem& p : problems)
    for (DType d : kDtypes) checkMatmul(p, d, seed += 2);
}

//===----------------------------------------------------------------------===//
// Fused epilogues: Y = g(X @ W^T ...), X [M, K], W [N, K]
//===----------------------------------------------------------------------===//

constexpr double kSqrt2OverPi = 0.7978845608028654;

double geluRef(tg::Gelu kind, double p) {
  if (kind == tg::Gelu::Tanh) return 0.5 * p * (1.0 + std::tanh(kSqrt2OverPi * (p + 0.044715 * p * p * p)));
  return 0.5 * p * (1.0 + std::erf(p / std::sqrt(2.0)));
}

/// The shapes the epilogue tests use (M, N, K): tile-aligned, and ragged in every dim.
struct LinearShape {
  int64_t m, n, k;
};
constexpr LinearShape kLinearShapes[] = {{256, 512, 384}, {100, 200, 72}, {4, 700, 264}};

/// Inputs of one linear-layer case: X [M, K], W [N, K], bias [N], residual [M, N].
struct LinearInputs {
  Problem p;
  Tensor x, w, bias, residual;
  std::vector<float> biasV, residualV;
  Reference r;
};

LinearInputs makeLinear(LinearShape s, DType d, uint64_t seed) {
  LinearInputs in;
  in.p = {.m = s.m, .k = s.k, .n = s.n, .transB = true};
  in.x = tg::randn({s.m, s.k}, d, seed, Device::CUDA);
  in.w = tg::randn({s.n, s.k}, d, seed + 1, Device::CUDA);
  in.bias = tg::randn({s.n}, d, seed + 2, Device::CUDA);
  in.residual = tg::randn({s.m, s.n}, d, seed + 3, Device::CUDA);
  in.biasV = in.bias.to_vector<float>();
  in.residualV = in.residual.to_vector<float>();
  in.r = referenceMatmul(in.p, in.x.to_vector<float>(), in.w.to_vector<float>());
  return in;
}

/// Applies `e` to the reference C of `in` and compares `got` with it.
void expectEpilogue(const Tensor& got, const LinearInputs& in, DType d, DType out, const Epilogue& e) {
  std::vector<double> want(in.r.c.size());
  for (size_t x = 0; x < want.size(); ++x)
    want[x] = e.ref(in.r.c[x], static_cast<int64_t>(x) / in.p.n, static_cast<int64_t>(x) % in.p.n);
  expectMatches(got, in.p, d, out, in.r, want, e);
}

Tensor linear(const Tensor& x, const Tensor& w) { return tg::matmul(x, tg::transpose(w, 0, 1)); }

TEST(GpuMatmul, LinearGeluIsOneKernel) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  uint64_t seed = 600;
  for (LinearShape s : kLinearShapes)
    for (tg::Gelu kind : {tg::Gelu::Tanh, tg::Gelu::Erf}) {
      const std::string name = kind == tg::Gelu::Tanh ? "gelu_tanh" : "gelu_erf";
      SCOPED_TRACE(name + " M,N,K = " + std::to_string(s.m) + "," + std::to_string(s.n) + "," + std::to_string(s.k));
      LinearInputs in = makeLinear(s, DType::BF16, seed += 4);
      auto f = tg::jit([kind](const Tensor& x, const Tensor& w, const Tensor& b) {
        return tg::gelu(linear(x, w) + b, kind);
      });
      Tensor got = f(in.x, in.w, in.bias);
      const std::vector<float>& bias = in.biasV;
      expectEpilogue(got, in, DType::BF16, DType::BF16,
                     {name, [&](double c, int64_t, int64_t j) { return geluRef(kind, c + bias[j]); }, 1.13, true});
      const tg::JitReport report = f.report();
      ASSERT_EQ(report.graphs.size(), 1u);
      EXPECT_EQ(report.graphs[0].kernels, 1u) << "bias + gelu should be fused into the GEMM's epilogue";
    }
}

TEST(GpuMatmul, OtherEpilogues) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  uint64_t seed = 700;
  for (LinearShape s : kLinearShapes) {
    SCOPED_TRACE("M,N,K = " + std::to_string(s.m) + "," + std::to_string(s.n) + "," + std::to_string(s.k));
    LinearInputs in = makeLinear(s, DType::BF16, seed += 4);
    const std::vector<float>& bias = in.biasV;
    const std::vector<float>& res = in.residualV;
    const int64_t n = s.n;
    {
      auto f = tg::jit([](const Tensor& x, const Tensor& w, const Tensor& b) { return tg::relu(linear(x, w) + b); });
      expectEpilogue(f(in.x, in.w, in.bias), in, DType::BF16, DType::BF16,
                     {"relu", [&](double c, int64_t, int64_t j) { return std::max(c + bias[j], 0.0); }, 1, false});
    }
    {
      auto f = tg::jit([](const Tensor& x, const Tensor& w, const Tensor& b) {
        Tensor p = linear(x, w) + b;
        return p * tg::sigmoid(p);
      });
      expectEpilogue(f(in.x, in.w, in.bias), in, DType::BF16, DType::BF16,
                     {"silu",
                      [&](double c, int64_t, int64_t j) {
                        const double p = c + bias[j];
                        return p / (1.0 + std::exp(-p));
                      },
                      1.10, true});
    }
    {
      auto f = tg::jit([](const Tensor& x, const Tensor& w, const Tensor& r) { return linear(x, w) + r; });
      expectEpilogue(f(in.x, in.w, in.residual), in, DType::BF16, DType::BF16,
                     {"+ residual", [&](double c, int64_t i, int64_t j) { return c + res[i * n + j]; }, 1, false});
    }
    {
      auto f = tg::jit([](const Tensor& x, const Tensor& w) { return linear(x, w) * 0.5f; });
      expectEpilogue(f(in.x, in.w), in, DType::BF16, DType::BF16,
                     {"* 0.5", [](double c, int64_t, int64_t) { return 0.5 * c; }, 0.5, false});
    }
    {
      // f32 (TF32) accumulation, one rounding to bf16 at the end: no 16-bit intermediate.
      LinearInputs in32 = makeLinear(s, DType::F32, seed + 2);
      auto f = tg::jit([](const Tensor& x, const Tensor& w) { return tg::cast(linear(x, w), DType::BF16); });
      expectEpilogue(f(in32.x, in32.w), in32, DType::F32, DType::BF16,
                     {"cast to bf16", [](double c, int64_t, int64_t) { return c; }, 1, false});
    }
  }
}

// Over dynamic dims: one compile serves every size of the range (sizes from 2; a size of 1 is
// its own variant, the gemv path), each call's values within the file header's tolerance.
TEST(GpuMatmul, OverDynamicRowsOneCompileServesEverySize) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  const tg::Dim tokens("tokens", 1, 8192);
  uint64_t seed = 900;
  for (DType d : {DType::BF16, DType::F32}) {
    SCOPED_TRACE(tg::dtype_name(d));
    auto gelu = tg::jit([](const Tensor& x, const Tensor& w, const Tensor& b) { return tg::gelu(linear(x, w) + b, tg::Gelu::Tanh); },
                        {.dynamic = {{0, 0, tokens}}});
    auto residual = tg::jit([](const Tensor& x, const Tensor& w, const Tensor& r) { return linear(x, w) + r; },
                            {.dynamic = {{0, 0, tokens}, {2, 0, tokens}}});
    // Each size twice in a row somewhere: replays as a CUDA graph from a function's second call.
    for (int64_t m : {2, 3, 3, 7, 64, 127, 128, 129, 1000, 4099, 8192, 7, 1, 1}) {
      SCOPED_TRACE("tokens " + std::to_string(m));
      const LinearInputs in = makeLinear({m, 192, 320}, d, seed += 4);
      const std::vector<float>& bias = in.biasV;
      const std::vector<float>& res = in.residualV;
      expectEpilogue(gelu(in.x, in.w, in.bias), in, d, d,
                     {"gelu_tanh", [&](double c, int64_t, int64_t j) { return geluRef(tg::Gelu::Tanh, c + bias[j]); }, 1.13, true});
      expectEpilogue(residual(in.x, in.w, in.residual), in, d, d,
                     {"+ residual", [&](double c, int64_t i, int64_t j) { return c + res[i * 192 + j]; }, 1, false});
    }
    for (const tg::JitReport& r : {gelu.report(), residual.report()}) {
      ASSERT_EQ(r.graphs.size(), 2u) << r.str();  // tokens from 2, and tokens = 1
      EXPECT_EQ(r.graphs[0].symbols, "tokens in [2, 8192]") << r.str();
      EXPECT_EQ(r.graphs[0].kernels, 1u) << "the epilogue fused into the GEMM:\n" << r.str();
      EXPECT_TRUE(r.graphs[0].cudaGraph) << r.str();
      EXPECT_GE(r.graphs[0].sizeChanges, 10u) << r.str();
    }
  }
  // 1024 columns: 128 x 256 tiles for the range's top, and a guarded variant with 128 x 128
  // tiles up to 3,072 rows; sizes on both sides, replayed as one CUDA graph whose kernel node
  // changes function with the variant.
  {
    auto wide = tg::jit([](const Tensor& x, const Tensor& w, const Tensor& b) { return tg::gelu(linear(x, w) + b, tg::Gelu::Tanh); },
                        {.dynamic = {{0, 0, tokens}}});
    for (int64_t m : {100, 100, 5000, 5000, 3072, 3073, 3073, 2, 8192, 129, 129}) {
      SCOPED_TRACE("wide, tokens " + std::to_string(m));
      const LinearInputs in = makeLinear({m, 1024, 256}, DType::BF16, seed += 4);
      const std::vector<float>& bias = in.biasV;
      expectEpilogue(wide(in.x, in.w, in.bias), in, DType::BF16, DType::BF16,
                     {"gelu_tanh", [&](double c, int64_t, int64_t j) { return geluRef(tg::Gelu::Tanh, c + bias[j]); }, 1.13, true});
    }
    const tg::JitReport r = wide.report();
    ASSERT_EQ(r.graphs.size(), 1u) << r.str();
    EXPECT_TRUE(r.graphs[0].cudaGraph) << r.str();
    EXPECT_GE(r.graphs[0].cudaGraphLaunches, 4u) << r.str();
    ASSERT_EQ(r.graphs[0].sizeVariants.size(), 1u) << r.str();
    EXPECT_NE(r.graphs[0].sizeVariants[0].find("where tokens <= 3072, rows up to 3072: 128 x 128 tiles, 6 stages (taken at the last run)"),
              std::string::npos)
        << r.str();
  }
  // [batch, seq, K] @ W^T + b: M is seq, and the batch a run-time count of tiles too.
  auto layer = tg::jit([](const Tensor& x, const Tensor& w, const Tensor& b) { return linear(x, w) + b; },
                       {.dynamic = {{0, 0, tg::Dim("batch", 1, 16)}, {0, 1, tg::Dim("seq", 1, 1024)}}});
  for (auto [batch, seq] : std::vector<std::pair<int64_t, int64_t>>{{2, 3}, {3, 129}, {3, 129}, {16, 1024}, {5, 7}, {2, 255}}) {
    SCOPED_TRACE("batch " + std::to_string(batch) + ", seq " + std::to_string(seq));
    const LinearInputs in = makeLinear({batch * seq, 136, 256}, DType::BF16, seed += 4);
    const std::vector<float>& bias = in.biasV;
    Tensor got = layer(tg::reshape(in.x, {batch, seq, 256}), in.w, in.bias);
    ASSERT_EQ(got.shape(), (tg::Shape{batch, seq, 136}));
    expectEpilogue(tg::reshape(got, {batch * seq, 136}), in, DType::BF16, DType::BF16,
                   {"+ bias", [&](double c, int64_t, int64_t j) { return c + bias[j]; }, 1, false});
  }
  const tg::JitReport r = layer.report();
  ASSERT_EQ(r.graphs.size(), 1u) << r.str();
  EXPECT_EQ(r.graphs[0].symbols, "batch in [2, 16], seq in [2, 1024]") << r.str();
  EXPECT_EQ(r.graphs[0].kernels, 1u) << r.str();
}

}  // namespace
