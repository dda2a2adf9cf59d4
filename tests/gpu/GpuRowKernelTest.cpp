//===- GpuRowKernelTest.cpp - Row kernels (fuse-reductions) on the GPU -----===//
//
// The row kernels of issue 15 (EmitRow.cpp, templates/row.cuh): softmax, log_softmax,
// layer_norm with and without weight and bias, RMSNorm from primitives and x - mean(x) with its
// variance, each compiled to one row kernel and run through the GPU program the jit uses, for
// f32 and bf16 and row widths that reach every plan of EmitRow.cpp's planRows (a few threads
// per row, a warp, a block, a cluster of 2 and of 8 blocks, and a row looped over in chunks;
// widths that are and are not multiples of a vector). Each result is checked twice, on fresh
// random inputs with every third row shifted by 100 (where a naive f32 variance E[x^2] - E[x]^2
// is off by about 1e-3):
//  - against what the kernel computes by definition, the row-fused module interpreted with f32
//    inside the kernel (FusedReference.h, InterpretOptions::f32InsideFusions), tightly;
//  - against a float64 computation of the formula, within f32 accumulation's error.
// A second test feeds softmax and log_softmax rows of masked (-inf) and very negative logits.
// Skips without a GPU.
//
//===----------------------------------------------------------------------===//
#include "GpuCompare.h"
#include "FusedReference.h"
#include "RandomGraph.h"

#include "tg/Compiler/Context.h"
#include "tg/Compiler/Driver.h"
#include "tg/Frontend/GpuProgram.h"
#include "tg/Frontend/TensorImpl.h"
#include "tg/Reference/Interpreter.h"
#include "tg/Runtime/Gpu.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <mutex>

namespace {

using namespace tggpu;

struct Case {
  const char* name;
  int inputs;  // x, then weight and bias of the row length
  size_t outputs;
  tgtest::ProgramFn fn;
};

std::vector<Case> cases() {
  using V = std::vector<Tensor>;
  return {
      {"softmax", 1, 1, [](const V& v) { return V{tg::softmax(v[0])}; }},
      {"log_softmax", 1, 1,
       [](const V& v) {
         Tensor s = v[0] - tg::max(v[0], {-1}, true);
         return V{s - tg::log(tg::sum(tg::exp(s), {-1}, true))};
       }},
      {"layer_norm", 1, 1, [](const V& v) { return V{tg::layer_norm(v[0])}; }},
      {"layer_norm_affine", 3, 1, [](const V& v) { return V{tg::layer_norm(v[0], v[1], v[2])}; }},
      {"rmsnorm", 2, 1, [](const V& v) { return V{v[0] * tg::rsqrt(tg::mean(v[0] * v[0], {-1}, true) + 1e-6) * v[1]}; }},
      {"x_minus_mean_and_variance", 1, 2,
       [](const V& v) {
         Tensor d = v[0] - tg::mean(v[0], {-1}, true);
         return V{d, tg::mean(d * d, {-1})};
       }},
  };
}

/// Runs `c` on `in` as one row kernel on the GPU; `want` receives the row-fused module's
/// interpretation (f32 inside the kernel). Returns the GPU's results. The kernel's plan must
/// say `planText`.
std::vector<Tensor> runRowKernel(const Case& c, const std::vector<Tensor>& in, std::vector<Tensor>& want,
                                 const std::string& planText = "row:") {
  tg::rt::Gpu& gpu = *tg::rt::Gpu::get();
  std::vector<tg::TensorSpec> specs;
  for (const Tensor& t : in) specs.push_back({t.shape(), t.dtype()});
  const std::string ir = tgtest::traceIr(specs, c.fn, c.outputs);
  tg::rt::Plan plan;
  {
    std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
    mlir::OwningOpRef<mlir::ModuleOp> m =
        mlir::parseSourceString<mlir::ModuleOp>(ir, &tg::compiler::sharedContext());
    EXPECT_TRUE(m);
    if (!m) return {};
    mlir::OwningOpRef<mlir::ModuleOp> reference = m->clone();
    EXPECT_EQ(tgtest::runUpToFuse(*reference, true, /*fuseReductions=*/true), "");
    std::vector<tg::ref::HostTensor> args;
    for (const Tensor& t : in) args.push_back(tg::detail::hostOf(t));
    tg::ref::InterpretOptions io;
    io.f32InsideFusions = true;
    want.clear();
    for (tg::ref::HostTensor& h : tg::ref::interpret(*reference->getOps<mlir::func::FuncOp>().begin(), args, io))
      want.push_back(tg::detail::wrapHost(std::move(h)));
    tg::compiler::PipelineOptions options = tg::compiler::pipelineOptionsFor(&gpu.info());
    options.fuseReductions = true;
    plan = tg::compiler::compile(*m, options);
  }
  EXPECT_EQ(plan.kernels.size(), 1u);
  if (plan.kernels.size() != 1) return {};
  EXPECT_NE(plan.kernels[0].summary.find(planText), std::string::npos) << plan.kernels[0].summary;
  std::unique_ptr<tg::detail::Program> program =
      tg::detail::makeGpuProgram(std::move(plan), gpu, ir, /*cudaGraphs=*/false);
  return program->run(toDevice(in, Device::CUDA));
}

/// The case's formula in float64 on the inputs' values (rows x width).
std::vector<Tensor> float64Reference(const std::string& name, const std::vector<Tensor>& in, int64_t rows,
                                     int64_t width) {
  auto values = [](const Tensor& t) {
    Tensor f = tg::cast(t, DType::F32);
    return f.to_vector<float>();
  };
  const std::vector<float> x = values(in[0]);
  const std::vector<float> w = in.size() > 1 ? values(in[1]) : std::vector<float>();
  const std::vector<float> b = in.size() > 2 ? values(in[2]) : std::vector<float>();
  std::vector<float> y(x.size()), stat(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = &x[static_cast<size_t>(r * width)];
    float* yr = &y[static_cast<size_t>(r * width)];
    double max = -std::numeric_limits<double>::infinity(), mean = 0;
    for (int64_t n = 0; n < width; ++n) max = std::max(max, double(xr[n])), mean += xr[n];
    mean /= double(width);
    double sumExp = 0, var = 0, meanSq = 0;
    for (int64_t n = 0; n < width; ++n) {
      sumExp += std::exp(double(xr[n]) - max);
      var += (double(xr[n]) - mean) * (double(xr[n]) - mean);
      meanSq += double(xr[n]) * double(xr[n]);
    }
    var /= double(width);
    meanSq /= double(width);
    for (int64_t n = 0; n < width; ++n) {
      const double v = xr[n];
      double out = 0;
      if (name == "softmax") out = std::exp(v - max) / sumExp;
      else if (name == "log_softmax") out = (v - max) - std::log(sumExp);
      else if (name == "layer_norm") out = (v - mean) / std::sqrt(var + 1e-5);
      else if (name == "layer_norm_affine") out = (v - mean) / std::sqrt(var + 1e-5) * w[n] + b[n];
      else if (name == "rmsnorm") out = v / std::sqrt(meanSq + 1e-6) * w[n];
      else out = v - mean;  // x_minus_mean_and_variance
      yr[n] = static_cast<float>(out);
    }
    stat[static_cast<size_t>(r)] = static_cast<float>(var);
  }
  // Rounded to the inputs' dtype (once from f64 to f32, then to bf16: within the 1-ulp
  // tolerance), as the results are.
  std::vector<Tensor> out = {tg::cast(tg::from_vector(y, {rows, width}, DType::F32, Device::CPU), in[0].dtype())};
  if (name == "x_minus_mean_and_variance")
    out.push_back(tg::cast(tg::from_vector(stat, {rows}, DType::F32, Device::CPU), in[0].dtype()));
  return out;
}

/// How far an f32 row kernel may be from the float64 formula (+1 ulp for bf16 results):
///  - softmax is relative everywhere (approximate exp: about 5e-6 at exponents near -87, f32
///    sums, a 2-ulp division);
///  - log_softmax is x - max (exact) minus a logarithm: absolute;
///  - the mean-based ones inherit the f32 mean's error: rounding errors of about 6e-8 * 100 *
///    (values so far) per addition in a thread's running sum of values near 100, a few 1e-6
///    in the mean; 1e-4 leaves a margin (the comparison with the interpreter is the tight one).
Tolerance float64Tolerance(const std::string& name, DType dtype, const Tensor& exact) {
  Tolerance tol;
  tol.dtypeUlps = dtype == DType::F32 ? 0 : 1;
  if (name == "softmax") {
    tol.rel = 2e-5;
    tol.abs = 1e-30;
  } else if (name == "log_softmax") {
    tol.rel = 1e-5;
    tol.abs = 1e-4;
  } else {
    tol.rel = 1e-4;
    tol.abs = 1e-4 * std::max(1.0, maxAbs(exact));
  }
  tol.rule = "float64 formula, |diff| <= " + std::to_string(tol.abs) + " + " + std::to_string(tol.rel) + " |r| (+1 ulp of bf16)";
  return tol;
}

/// The GPU's results of case `name` against the interpreter's (`want`) and the float64
/// formula's (`exact`).
void compareRowResults(const std::string& name, DType dtype, const std::vector<Tensor>& got,
                       const std::vector<Tensor>& want, const std::vector<Tensor>& exact) {
  for (size_t o = 0; o < got.size(); ++o) {
    // Against the kernel's definition: the same f32 steps, but exp approximate (a few ulp) and
    // the row sums in f32 in another order than the reference's f64, then a 16-bit rounding
    // that may go the other way (1 ulp); relative to the result's largest value.
    Tolerance tol;
    tol.dtypeUlps = dtype == DType::F32 ? 0 : 1;
    tol.abs = 1e-5 * std::max(1.0, maxAbs(want[o]));
    tol.rel = 1e-5;
    tol.rule = "f32 row statistics, |diff| <= 1e-5 (1 + |r|) (+1 ulp of bf16)";
    compare(got[o], want[o], tol);
    compare(got[o], exact[o], float64Tolerance(name, dtype, exact[o]));
  }
}

TEST(GpuRowKernels, NormalisationsMatchTheCpuAndFloat64) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  constexpr float kShift = 100.0f;
  // Widths for every plan (at these dtypes): a few threads per row (1, 7), a warp (64, 256,
  // 777, 4096 bf16), a block (4096 f32, 5000, 16384), clusters of 4 (65536) and 8 (262144),
  // looped (300000).
  for (int64_t width : {1, 7, 64, 256, 777, 4096, 5000, 16384, 65536, 262144, 300000})
    for (DType dtype : {DType::F32, DType::BF16})
      for (const Case& c : cases()) {
        SCOPED_TRACE(std::string(c.name) + " " + tg::dtype_name(dtype) + " width " + std::to_string(width));
        const int64_t rows = std::clamp<int64_t>((int64_t(1) << 21) / width, 8, 37);
        std::vector<float> shifts(static_cast<size_t>(rows));
        for (int64_t r = 0; r < rows; ++r) shifts[r] = r % 3 == 0 ? kShift : 0.0f;
        Tensor shift = tg::cast(tg::from_vector(shifts, {rows, 1}, DType::F32, Device::CPU), dtype);
        std::vector<Tensor> in = {tg::randn({rows, width}, dtype, 100 + width, Device::CPU) + shift};
        for (int i = 1; i < c.inputs; ++i) in.push_back(tg::randn({width}, dtype, 200 + i, Device::CPU));
        std::vector<Tensor> want;
        const std::vector<Tensor> got = runRowKernel(c, in, want);
        ASSERT_EQ(got.size(), want.size());
        const std::vector<Tensor> exact = float64Reference(c.name, in, rows, width);
        ASSERT_EQ(got.size(), exact.size());
        compareRowResults(c.name, dtype, got, want, exact);
      }
}

// More rows than the GPU holds clusters at once (at most 132 SMs x 8 blocks of 256 / 8): most
// clusters start after others have finished (softmax: two reductions; RMSNorm: one; the
// variance: a result of one per row too).
TEST(GpuRowKernels, ClusterPlansOfMoreRowsThanFitAtOnce) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  constexpr int64_t kRows = 520, kWidth = 65536;
  for (DType dtype : {DType::F32, DType::BF16})
    for (const Case& c : cases()) {
      const std::string name = c.name;
      if (name != "softmax" && name != "rmsnorm" && name != "x_minus_mean_and_variance") continue;
      SCOPED_TRACE(name + " " + tg::dtype_name(dtype));
      std::vector<Tensor> in = {tg::randn({kRows, kWidth}, dtype, 400, Device::CPU)};
      for (int i = 1; i < c.inputs; ++i) in.push_back(tg::randn({kWidth}, dtype, 500 + i, Device::CPU));
      std::vector<Tensor> want;
      const std::vector<Tensor> got = runRowKernel(c, in, want, "in each of a cluster of");
      ASSERT_EQ(got.size(), want.size());
      const std::vector<Tensor> exact = float64Reference(name, in, kRows, kWidth);
      ASSERT_EQ(got.size(), exact.size());
      compareRowResults(name, dtype, got, want, exact);
    }
}

TEST(GpuRowKernels, SoftmaxOfMaskedAndVeryNegativeLogits) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  const float inf = std::numeric_limits<float>::infinity();
  for (int64_t width : {100, 1024, 65536})
    for (DType dtype : {DType::F32, DType::BF16})
      for (const Case& c : cases()) {
        const std::string name = c.name;
        if (name != "softmax" && name != "log_softmax") continue;
        SCOPED_TRACE(name + " " + tg::dtype_name(dtype) + " width " + std::to_string(width));
        const int64_t rows = 16;
        std::vector<float> x = tg::randn({rows, width}, DType::F32, 300 + width, Device::CPU).to_vector<float>();
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t n = 0; n < width; ++n) {
            float& v = x[static_cast<size_t>(r * width + n)];
            switch (r % 4) {
              case 1: v -= 1e4f; break;                      // very negative: exp(x) alone underflows
              case 2: if (n % 2) v = -inf; break;            // half the keys masked
              case 3: if (n != r % width) v = -inf; break;   // one key left
              default: break;
            }
          }
        std::vector<Tensor> in = {tg::cast(tg::from_vector(x, {rows, width}, DType::F32, Device::CPU), dtype)};
        std::vector<Tensor> want;
        const std::vector<Tensor> got = runRowKernel(c, in, want);
        ASSERT_EQ(got.size(), 1u);
        const std::vector<Tensor> exact = float64Reference(name, in, rows, width);
        Tolerance tol;
        tol.dtypeUlps = dtype == DType::F32 ? 0 : 1;
        tol.abs = name == "softmax" ? 1e-5 : 1e-4;  // log_softmax: values to about -20
        tol.rel = 1e-5;
        tol.rule = "f32 row statistics, |diff| <= " + std::to_string(tol.abs) + " + 1e-5 |r| (+1 ulp of bf16); -inf where masked";
        compare(got[0], want[0], tol);
        compare(got[0], exact[0], float64Tolerance(name, dtype, exact[0]));
      }
}

}  // namespace
