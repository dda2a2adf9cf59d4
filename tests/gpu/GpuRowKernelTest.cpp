//===- GpuRowKernelTest.cpp - Row kernels (fuse-reductions) on the GPU -----===//
//
// The row kernels of issue 15 (EmitRow.cpp, templates/row.cuh), still behind
// PipelineOptions::fuseReductions: softmax, log_softmax, layer_norm with and without weight and
// bias, RMSNorm from primitives and x - mean(x) with its variance, each compiled to one row
// kernel and run through the GPU program the jit uses, against what the kernel computes by
// definition: the row-fused module interpreted with f32 inside the kernel (FusedReference.h,
// InterpretOptions::f32InsideFusions), on fresh random inputs (rows with a large offset among
// them), for f32 and bf16, rows of a warp and of a block, widths that are and are not
// multiples of a vector. Skips without a GPU.
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

#include <functional>
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

TEST(GpuRowKernels, NormalisationsMatchTheCpu) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  tg::rt::Gpu& gpu = *tg::rt::Gpu::get();
  for (DType dtype : {DType::F32, DType::BF16})
    for (int64_t width : {int64_t{64}, int64_t{777}, int64_t{4096}, int64_t{5000}})
      for (const Case& c : cases()) {
        SCOPED_TRACE(std::string(c.name) + " " + tg::dtype_name(dtype) + " width " + std::to_string(width));
        const int64_t rows = 37;
        std::vector<tg::TensorSpec> specs = {{{rows, width}, dtype}};
        for (int i = 1; i < c.inputs; ++i) specs.push_back({{width}, dtype});
        // Inputs: normal values, every third row shifted by 100 (a naive variance loses it).
        std::vector<Tensor> in;
        Tensor shift = tg::cast(tg::from_vector(
                                    [&] {
                                      std::vector<float> s(static_cast<size_t>(rows));
                                      for (int64_t r = 0; r < rows; ++r) s[r] = r % 3 == 0 ? 100.0f : 0.0f;
                                      return s;
                                    }(),
                                    {rows, 1}, DType::F32, Device::CPU),
                                dtype);
        in.push_back(tg::randn({rows, width}, dtype, 100 + width, Device::CPU) + shift);
        for (int i = 1; i < c.inputs; ++i) in.push_back(tg::randn({width}, dtype, 200 + i, Device::CPU));
        const std::string ir = tgtest::traceIr(specs, c.fn, c.outputs);
        tg::rt::Plan plan;
        std::vector<Tensor> want;
        {
          std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
          mlir::OwningOpRef<mlir::ModuleOp> m =
              mlir::parseSourceString<mlir::ModuleOp>(ir, &tg::compiler::sharedContext());
          ASSERT_TRUE(m);
          mlir::OwningOpRef<mlir::ModuleOp> reference = m->clone();
          ASSERT_EQ(tgtest::runUpToFuse(*reference, true, /*fuseReductions=*/true), "");
          std::vector<tg::ref::HostTensor> args;
          for (const Tensor& t : in) args.push_back(tg::detail::hostOf(t));
          tg::ref::InterpretOptions io;
          io.f32InsideFusions = true;
          for (tg::ref::HostTensor& h :
               tg::ref::interpret(*reference->getOps<mlir::func::FuncOp>().begin(), args, io))
            want.push_back(tg::detail::wrapHost(std::move(h)));
          tg::compiler::PipelineOptions options = tg::compiler::pipelineOptionsFor(&gpu.info());
          options.fuseReductions = true;
          plan = tg::compiler::compile(*m, options);
        }
        ASSERT_EQ(plan.kernels.size(), 1u);
        EXPECT_NE(plan.kernels[0].summary.find("row:"), std::string::npos) << plan.kernels[0].summary;
        std::unique_ptr<tg::detail::Program> program =
            tg::detail::makeGpuProgram(std::move(plan), gpu, ir, /*cudaGraphs=*/false);
        const std::vector<Tensor> got = program->run(toDevice(in, Device::CUDA));
        ASSERT_EQ(got.size(), want.size());
        for (size_t o = 0; o < got.size(); ++o) {
          // The same f32 steps, but exp approximate (a few ulp) and the row sums in f32 in
          // another order than the reference's f64, then a 16-bit rounding that may go the
          // other way (1 ulp); relative to the result's largest value.
          Tolerance tol;
          tol.dtypeUlps = dtype == DType::F32 ? 0 : 1;
          tol.abs = 1e-5 * std::max(1.0, maxAbs(want[o]));
          tol.rel = 1e-5;
          tol.rule = "f32 row statistics, |diff| <= 1e-5 (1 + |r|) (+1 ulp of bf16)";
          compare(got[o], want[o], tol);
        }
      }
}

}  // namespace
