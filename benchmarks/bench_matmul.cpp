//===- bench_matmul.cpp - tg's matmuls against cuBLAS on the same GPU -----===//
//
// Google Benchmark, one binary (tg_bench_gemm). Names are <case>/<dtype>[/<shape>]/<variant>
// as benchmarks/report.py expects, with the case names of compare_torch.py:
//   gemm/bf16/{2048,4096,8192}   A @ B, square, bf16 in and out, f32 accumulation
//   gemm/bf16/8192x4096x4096     X[8192, 4096] @ W[4096, 4096]^T (M x N x K, a linear layer)
//   gemm/tf32/2048               f32 in and out through TF32 tensor cores (A @ B: B [K, N],
//                                which tg's wgmma cannot read as TF32: the mma_sync path)
//   gemm_nt/tf32/2048            the same with W [N, K] used as W^T (x @ w^T: wgmma as TF32;
//                                not gemm/tf32/2048x2048x2048, which report.py spells 2048)
//   gemm/tf32/8192x4096x4096     the linear layer of the bf16 case, in f32 through TF32
//   mlp/bf16                     gelu_tanh(X @ W^T + b), the GEMM above plus its epilogue
//   gemv/<dtype>/MxNxK           x[M, K] @ W[N, K]^T with M <= 16 (a decode step's linear layer)
//   matvec/<dtype>/MxNxK         A[M, K] @ x[K, N] with N <= 16 (a solver's matrix-vector step)
//     These are bound by the matrix's bytes: both variants read it from rotating copies that
//     together exceed the 60 MB L2 (each call a copy not read for ~200 MB), as a model's
//     weights arrive; counters gbps (matrix and vector bytes / time) and roofline_pct (against
//     the device copy bandwidth measured in the same run, the case copy/roofline).
// Variants: `cublas` (cublasGemmEx on tg's stream; runs first), `tg` (tg::jit, inputs already
// on the device) and, for mlp, `cublas+tg_epilogue` (cuBLAS's GEMM, then a tg kernel for
// bias + gelu). Counters: median_us (Timing.h, as tg_bench and compare_torch.py time),
// tflops (2 M N K / time, the epilogue not counted), vs_cublas (cuBLAS time / this time,
// measured in the same run: > 1 means faster than cuBLAS) and, for mlp, over_cublas_gemm
// (this time / bare cuBLAS GEMM time; tg's target is <= 1.08).
//
// Before timing, every tg variant is checked against cuBLAS on sampled elements; a
// disagreement ends the case with SkipWithError, so a broken kernel never produces a number.
// cuBLAS is the baseline only: it is linked into this binary, never into the tg library.
//
//===----------------------------------------------------------------------===//
#include "BenchCase.h"
#include "Timing.h"

#include "tg/Frontend/TensorImpl.h"  // device addresses of tg tensors, which cuBLAS needs
#include "tg/Runtime/Gpu.h"
#include "tg/Support/Half.h"

#include <benchmark/benchmark.h>
#include <cublas_v2.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>

namespace {

using tg::DType;
using tg::Tensor;
using tgbench::medianUs;

/// C[M, N] = A[M, K] @ B with B stored [K, N], or with B = W stored [N, K] and used as W^T
/// when `nt` (compare_torch.py's gemm_nt). F32 means TF32 tensor cores on both sides.
struct GemmCase {
  std::string key;
  DType dtype;
  int64_t m, n, k;
  bool nt;
  double flops() const { return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k); }
  tg::Shape shapeB() const { return nt ? tg::Shape{n, k} : tg::Shape{k, n}; }
};

const GemmCase kGemms[] = {
    {"gemm/bf16/2048", DType::BF16, 2048, 2048, 2048, false},
    {"gemm/bf16/4096", DType::BF16, 4096, 4096, 4096, false},
    {"gemm/bf16/8192", DType::BF16, 8192, 8192, 8192, false},
    {"gemm/bf16/8192x4096x4096", DType::BF16, 8192, 4096, 4096, true},
    {"gemm/tf32/2048", DType::F32, 2048, 2048, 2048, false},
    {"gemm_nt/tf32/2048", DType::F32, 2048, 2048, 2048, true},
    {"gemm/tf32/8192x4096x4096", DType::F32, 8192, 4096, 4096, true},
};
const GemmCase kMlp{"mlp/bf16", DType::BF16, 8192, 4096, 4096, true};

/// Matmuls bound by the matrix's bytes: x @ W^T (nt) with M <= 16, A @ x with N <= 16.
const GemmCase kSkinny[] = {
    {"gemv/bf16/1x4096x4096", DType::BF16, 1, 4096, 4096, true},
    {"gemv/bf16/4x4096x4096", DType::BF16, 4, 4096, 4096, true},
    {"gemv/bf16/8x4096x4096", DType::BF16, 8, 4096, 4096, true},
    {"gemv/bf16/16x4096x4096", DType::BF16, 16, 4096, 4096, true},
    {"gemv/bf16/1x14336x4096", DType::BF16, 1, 14336, 4096, true},
    {"gemv/bf16/16x14336x4096", DType::BF16, 16, 14336, 4096, true},
    {"gemv/bf16/1x5632x2048", DType::BF16, 1, 5632, 2048, true},    // the decoder's gate/up
    {"gemv/bf16/1x2048x5632", DType::BF16, 1, 2048, 5632, true},    // and down projections
    {"gemv/bf16/1x32000x2048", DType::BF16, 1, 32000, 2048, true},  // its output projection
    {"gemv/f32/1x4096x4096", DType::F32, 1, 4096, 4096, true},
    {"gemv/f32/16x4096x4096", DType::F32, 16, 4096, 4096, true},
    {"matvec/f32/4096x1x4096", DType::F32, 4096, 1, 4096, false},
    {"matvec/f32/2048x1x2048", DType::F32, 2048, 1, 2048, false},  // the Jacobi step of the issue
    {"matvec/f32/4096x16x4096", DType::F32, 4096, 16, 4096, false},
    {"matvec/bf16/4096x4x4096", DType::BF16, 4096, 4, 4096, false},
};

/// cuBLAS's median time per case key, for the vs_cublas counters of later variants.
std::map<std::string, double> gCublasUs;

bool haveGpu(benchmark::State& state) {
  if (tg::cuda_available()) return true;
  state.SkipWithError("no GPU");
  return false;
}

//===----------------------------------------------------------------------===//
// cuBLAS on tg's stream
//===----------------------------------------------------------------------===//

/// One cuBLAS handle bound to tg's stream (so the events of medianUs bracket its work and it
/// is ordered with tg's kernels) with a 32 MiB workspace from tg's allocator (Hopper's
/// recommended size). Created on first use and never destroyed: the order of static
/// destructors against tg's Gpu is unspecified, and process exit releases both.
struct Cublas {
  cublasHandle_t handle = nullptr;
  std::shared_ptr<tg::rt::DeviceBuffer> workspace;
  std::string error;  ///< why the handle is unusable; empty when it works
};

Cublas& cublas() {
  static Cublas* c = [] {
    auto* made = new Cublas;
    tg::rt::Gpu& gpu = *tg::rt::Gpu::get();
    cublasStatus_t s = cublasCreate(&made->handle);
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasSetStream(made->handle, static_cast<cudaStream_t>(gpu.stream()));
    if (s == CUBLAS_STATUS_SUCCESS) {
      made->workspace = gpu.allocate(size_t(32) << 20);
      s = cublasSetWorkspace(made->handle, reinterpret_cast<void*>(made->workspace->ptr()), made->workspace->bytes());
    }
    if (s != CUBLAS_STATUS_SUCCESS) made->error = std::string("cuBLAS setup: ") + cublasGetStatusString(s);
    return made;
  }();
  return *c;
}

/// The device address of a concrete CUDA tensor. The public API has none (tensors are
/// values), so this reads TensorImpl, an internal header.
void* devicePtr(const Tensor& t) { return reinterpret_cast<void*>(static_cast<uintptr_t>(t.impl().buffer->ptr())); }

/// An uninitialised CUDA tensor of its own, for cuBLAS to write into (tg never sees the
/// write: the tensor is only read after it).
Tensor outputTensor(tg::Shape shape, DType dtype) {
  const size_t bytes = static_cast<size_t>(tg::shape_numel(shape)) * tg::dtype_size(dtype);
  return tg::detail::wrapDevice(tg::rt::Gpu::get()->allocate(bytes), {dtype, std::move(shape)});
}

/// C = A @ op(B) for row-major tensors. cuBLAS is column-major, where a row-major [R, C]
/// matrix reads as its transpose; so it computes C^T[N, M] = op(B)^T @ A^T with the operands
/// swapped: B first (transposed back when it is W[N, K]), then A.
cublasStatus_t cublasGemm(const GemmCase& g, const Tensor& a, const Tensor& b, const Tensor& c) {
  const bool bf16 = g.dtype == DType::BF16;
  const cudaDataType type = bf16 ? CUDA_R_16BF : CUDA_R_32F;
  const cublasComputeType_t compute = bf16 ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_32F_FAST_TF32;
  const float alpha = 1.0f, beta = 0.0f;
  const int m = static_cast<int>(g.m), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
  return cublasGemmEx(cublas().handle, g.nt ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha,
                      devicePtr(b), type, g.nt ? k : n, devicePtr(a), type, k, &beta, devicePtr(c), type, n,
                      compute, CUBLAS_GEMM_DEFAULT);
}

//===----------------------------------------------------------------------===//
// Correctness before timing
//===----------------------------------------------------------------------===//

/// Element `i` of a CUDA tensor (one small blocking copy).
double elementAt(const Tensor& t, int64_t i) {
  const size_t size = tg::dtype_size(t.dtype());
  uint32_t raw = 0;
  tg::rt::Gpu::get()->copyToHost(&raw, t.impl().buffer->ptr() + static_cast<uint64_t>(i) * size, size);
  if (t.dtype() == DType::BF16) return tg::bf16_to_float(static_cast<uint16_t>(raw));
  float f;
  std::memcpy(&f, &raw, sizeof f);
  return f;
}

/// Empty when `got` agrees with `want` on 256 sampled elements (the first and last included:
/// ragged edges), else where they differ. Loose on purpose: two correct results differ by
/// their roundings (2^-8 relative for bf16) and TF32 or accumulation order (about
/// 2^-10 sqrt(K) for randn inputs), while a wrong kernel misses by about |C| ~ sqrt(K).
std::string disagreement(const Tensor& got, const Tensor& want, int64_t k) {
  const int64_t n = want.numel();
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (int s = 0; s < 256; ++s) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;  // an LCG: fixed samples
    const int64_t i = s == 0 ? 0 : s == 1 ? n - 1 : static_cast<int64_t>((state >> 17) % static_cast<uint64_t>(n));
    const double g = elementAt(got, i), w = elementAt(want, i);
    const double bound = std::ldexp(std::fabs(w), -6) + 1e-2 * std::sqrt(static_cast<double>(k));
    if (!(std::fabs(g - w) <= bound)) {  // NaN fails too
      std::ostringstream os;
      os << "tg disagrees with cuBLAS at element " << i << ": " << g << " vs " << w << " (bound " << bound << ")";
      return os.str();
    }
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Benchmarks
//===----------------------------------------------------------------------===//

void report(benchmark::State& state, const GemmCase& g, double us, bool isCublas) {
  state.SetIterationTime(us * 1e-6);
  state.counters["median_us"] = us;
  state.counters["tflops"] = g.flops() / (us * 1e-6) / 1e12;
  auto it = gCublasUs.find(g.key);
  if (isCublas) {
    gCublasUs[g.key] = us;
  } else if (it != gCublasUs.end()) {
    state.counters["vs_cublas"] = it->second / us;
    if (g.key == kMlp.key) state.counters["over_cublas_gemm"] = us / it->second;
  }
}

struct GemmInputs {
  Tensor a, b;
};

GemmInputs makeInputs(const GemmCase& g) {
  return {tg::randn({g.m, g.k}, g.dtype, 1, tg::Device::CUDA), tg::randn(g.shapeB(), g.dtype, 2, tg::Device::CUDA)};
}

/// Runs `fn` once and ends the case with SkipWithError if cuBLAS fails.
template <typename Fn>
bool cublasOk(benchmark::State& state, Fn fn) {
  if (!cublas().error.empty()) {
    state.SkipWithError(cublas().error.c_str());
    return false;
  }
  const cublasStatus_t s = fn();
  if (s == CUBLAS_STATUS_SUCCESS) return true;
  state.SkipWithError((std::string("cublasGemmEx: ") + cublasGetStatusString(s)).c_str());
  return false;
}

void BM_GemmCublas(benchmark::State& state, const GemmCase& g) {
  if (!haveGpu(state)) return;
  GemmInputs in = makeInputs(g);
  Tensor c = outputTensor({g.m, g.n}, g.dtype);
  if (!cublasOk(state, [&] { return cublasGemm(g, in.a, in.b, c); })) return;
  for (auto _ : state) report(state, g, medianUs([&](int) { cublasGemm(g, in.a, in.b, c); }), true);
}

Tensor tgMatmul(const Tensor& a, const Tensor& b, bool nt) { return tg::matmul(a, nt ? tg::transpose(b, 0, 1) : b); }

void BM_GemmTg(benchmark::State& state, const GemmCase& g) {
  if (!haveGpu(state)) return;
  GemmInputs in = makeInputs(g);
  const bool nt = g.nt;
  auto f = tg::jit([nt](const Tensor& a, const Tensor& b) { return tgMatmul(a, b, nt); });
  Tensor want = outputTensor({g.m, g.n}, g.dtype);
  if (!cublasOk(state, [&] { return cublasGemm(g, in.a, in.b, want); })) return;
  const std::string bad = disagreement(f(in.a, in.b), want, g.k);  // also compiles f
  if (!bad.empty()) {
    state.SkipWithError(bad.c_str());
    return;
  }
  for (auto _ : state) report(state, g, medianUs([&](int) { benchmark::DoNotOptimize(f(in.a, in.b)); }), false);
}

/// The mlp's epilogue on a GEMM result: what cublas+tg_epilogue runs after cuBLAS.
Tensor biasGelu(const Tensor& y, const Tensor& bias) { return tg::gelu(y + bias, tg::Gelu::Tanh); }

enum class MlpVariant { Tg, CublasThenTgEpilogue };

/// mlp/bf16: X[M, K], W[N, K], b[N]. Both variants are checked against cuBLAS's GEMM followed
/// by tg's epilogue; only the tg variant's fusion is under test there.
void BM_Mlp(benchmark::State& state, MlpVariant variant) {
  if (!haveGpu(state)) return;
  const GemmCase& g = kMlp;
  GemmInputs in = makeInputs(g);
  Tensor bias = tg::randn({g.n}, g.dtype, 3, tg::Device::CUDA);
  auto epilogue = tg::jit(biasGelu);
  auto fused = tg::jit([](const Tensor& x, const Tensor& w, const Tensor& b) { return biasGelu(tgMatmul(x, w, true), b); });
  Tensor y = outputTensor({g.m, g.n}, g.dtype);
  if (!cublasOk(state, [&] { return cublasGemm(g, in.a, in.b, y); })) return;
  Tensor want = epilogue(y, bias);
  if (variant == MlpVariant::Tg) {
    const std::string bad = disagreement(fused(in.a, in.b, bias), want, g.k);
    if (!bad.empty()) {
      state.SkipWithError(bad.c_str());
      return;
    }
  }
  auto call = [&](int) {
    if (variant == MlpVariant::Tg) {
      benchmark::DoNotOptimize(fused(in.a, in.b, bias));
    } else {
      cublasGemm(g, in.a, in.b, y);
      benchmark::DoNotOptimize(epilogue(y, bias));
    }
  };
  for (auto _ : state) report(state, g, medianUs(call), false);
}

void BM_MlpCublasGemm(benchmark::State& state) { BM_GemmCublas(state, kMlp); }

/// A skinny case's inputs: copies of the matrix (W for gemv, A for matvec) that together
/// exceed L2 several times over, and the one small operand.
struct SkinnyInputs {
  std::vector<Tensor> matrices;
  Tensor small;
  const Tensor& a(int i) const { return nt ? small : matrices[static_cast<size_t>(i) % matrices.size()]; }
  const Tensor& b(int i) const { return nt ? matrices[static_cast<size_t>(i) % matrices.size()] : small; }
  bool nt = true;
};

double matrixBytes(const GemmCase& g) {
  return static_cast<double>(g.nt ? g.n : g.m) * static_cast<double>(g.k) * static_cast<double>(tg::dtype_size(g.dtype));
}

SkinnyInputs makeSkinny(const GemmCase& g) {
  SkinnyInputs in;
  in.nt = g.nt;
  const int copies = std::max(2, static_cast<int>(std::ceil(256e6 / matrixBytes(g))));
  for (int c = 0; c < copies; ++c)
    in.matrices.push_back(tg::randn(g.nt ? g.shapeB() : tg::Shape{g.m, g.k}, g.dtype, 10 + c, tg::Device::CUDA));
  in.small = tg::randn(g.nt ? tg::Shape{g.m, g.k} : g.shapeB(), g.dtype, 3, tg::Device::CUDA);
  return in;
}

/// Bytes a call must move: the matrix and the small operand read once, the result written.
double skinnyBytes(const GemmCase& g) {
  const double e = static_cast<double>(tg::dtype_size(g.dtype));
  return matrixBytes(g) + e * static_cast<double>(g.nt ? g.m * g.k : g.k * g.n) + e * static_cast<double>(g.m * g.n);
}

void reportSkinny(benchmark::State& state, const GemmCase& g, double us, bool isCublas) {
  report(state, g, us, isCublas);
  const double gbps = skinnyBytes(g) / (us * 1e-6) / 1e9;
  state.counters["gbps"] = gbps;
  state.counters["roofline_pct"] = 100.0 * gbps / tgbench::copyGbps();
}

void BM_SkinnyCublas(benchmark::State& state, const GemmCase& g) {
  if (!haveGpu(state)) return;
  SkinnyInputs in = makeSkinny(g);
  Tensor c = outputTensor({g.m, g.n}, g.dtype);
  if (!cublasOk(state, [&] { return cublasGemm(g, in.a(0), in.b(0), c); })) return;
  for (auto _ : state) reportSkinny(state, g, medianUs([&](int i) { cublasGemm(g, in.a(i), in.b(i), c); }), true);
}

void BM_SkinnyTg(benchmark::State& state, const GemmCase& g) {
  if (!haveGpu(state)) return;
  SkinnyInputs in = makeSkinny(g);
  const bool nt = g.nt;
  auto f = tg::jit([nt](const Tensor& a, const Tensor& b) { return tgMatmul(a, b, nt); });
  Tensor want = outputTensor({g.m, g.n}, g.dtype);
  if (!cublasOk(state, [&] { return cublasGemm(g, in.a(1), in.b(1), want); })) return;
  const std::string bad = disagreement(f(in.a(1), in.b(1)), want, g.k);  // also compiles f
  if (!bad.empty()) {
    state.SkipWithError(bad.c_str());
    return;
  }
  for (auto _ : state)
    reportSkinny(state, g, medianUs([&](int i) { benchmark::DoNotOptimize(f(in.a(i), in.b(i))); }), false);
}

void BM_CopyRoofline(benchmark::State& state) {
  if (!haveGpu(state)) return;
  for (auto _ : state) {
    double us = 0;
    const double gbps = tgbench::copyGbps(&us);
    state.SetIterationTime(us * 1e-6);
    state.counters["median_us"] = us;
    state.counters["gbps"] = gbps;
  }
}

benchmark::internal::Benchmark* timed(benchmark::internal::Benchmark* b) {
  return b->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
}

/// cuBLAS first in every case: the later variants divide by its time.
void registerCases() {
  for (const GemmCase& g : kGemms) {
    timed(benchmark::RegisterBenchmark((g.key + "/cublas").c_str(), BM_GemmCublas, g));
    timed(benchmark::RegisterBenchmark((g.key + "/tg").c_str(), BM_GemmTg, g));
  }
  timed(benchmark::RegisterBenchmark("mlp/bf16/cublas", BM_MlpCublasGemm));
  timed(benchmark::RegisterBenchmark("mlp/bf16/cublas+tg_epilogue", BM_Mlp, MlpVariant::CublasThenTgEpilogue));
  timed(benchmark::RegisterBenchmark("mlp/bf16/tg", BM_Mlp, MlpVariant::Tg));
  timed(benchmark::RegisterBenchmark("copy/roofline", BM_CopyRoofline));
  for (const GemmCase& g : kSkinny) {
    timed(benchmark::RegisterBenchmark((g.key + "/cublas").c_str(), BM_SkinnyCublas, g));
    timed(benchmark::RegisterBenchmark((g.key + "/tg").c_str(), BM_SkinnyTg, g));
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!tg::cuda_available()) std::fprintf(stderr, "tg_bench_gemm: no GPU; every case is skipped\n");
  registerCases();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
