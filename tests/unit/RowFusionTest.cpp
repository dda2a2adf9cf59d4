//===- RowFusionTest.cpp - Reductions fused with producers and consumers ---===//
//
// tg-fuse{fuse-reductions=true} (issue 15, first step: the fuser; row kernels have no CUDA
// code generation yet, so the pipeline keeps the option off). Kernel counts: softmax,
// log_softmax written out, layer_norm with and without weight and bias, and RMSNorm from
// primitives are each one row kernel, in f32, bf16 and f16, for rows that are and are not
// multiples of a vector; a column reduction and a reduction of a matmul's result stay apart.
// Correctness: the fused module interpreted op by op equals the unfused one bit for bit, on
// random inputs (tg_random_programs checks the richer generator's programs the same way).
// Code generation: every row kernel compiles with NVRTC for sm_90a and sm_80 (EmitRow.cpp;
// run on the GPU by the GPU suite once the option is on).
//
//===----------------------------------------------------------------------===//
#include "FusedReference.h"
#include "RandomGraph.h"

#include "tg/Compiler/Context.h"
#include "tg/Dialect/TgOps.h"
#include "tg/Reference/HostTensor.h"
#include "tg/Reference/Interpreter.h"
#include "tg/Runtime/KernelCache.h"
#include "tg/Runtime/Nvrtc.h"
#include "tg/tg.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <random>

namespace {

using tg::DType;
using tg::Tensor;
using tg::ref::HostTensor;

struct Kernels {
  int row = 0, other = 0;
};

Kernels countKernels(mlir::ModuleOp module) {
  Kernels k;
  module.walk([&](tg::ir::FusionOp f) { (f.getKind() == tg::ir::FusionKind::row ? k.row : k.other)++; });
  return k;
}

mlir::func::FuncOp onlyFunc(mlir::ModuleOp module) { return *module.getOps<mlir::func::FuncOp>().begin(); }

/// Random host values of `type` (normal, scaled; a few large offsets so that a naive variance
/// would lose precision).
HostTensor randomHost(const tg::TensorSpec& spec, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  std::vector<float> v(static_cast<size_t>(tg::shape_numel(spec.shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = normal(rng) + (i % 7 == 0 ? 100.0f : 0.0f);
  return HostTensor::fromFloats(spec.dtype, spec.shape, v);
}

/// Traces `fn`, fuses with fuse-reductions, checks the fused module against the traced one
/// and the unfused one (op-by-op interpretation, bit for bit) and returns the kernel counts.
Kernels fuseAndCheck(const std::vector<tg::TensorSpec>& specs, const tgtest::ProgramFn& fn,
                     size_t numOutputs, uint32_t seed) {
  const std::string ir = tgtest::traceIr(specs, fn, numOutputs);
  std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
  mlir::OwningOpRef<mlir::ModuleOp> original =
      mlir::parseSourceString<mlir::ModuleOp>(ir, &tg::compiler::sharedContext());
  if (!original) {
    ADD_FAILURE() << "the traced IR does not parse:\n" << ir;
    return {};
  }
  // The reference: the same pipeline without fusion (composites decomposed alike), op by op.
  mlir::OwningOpRef<mlir::ModuleOp> fused = original->clone(), unfused = original->clone();
  if (std::string err = tgtest::runUpToFuse(*fused, true, /*fuseReductions=*/true); !err.empty()) {
    ADD_FAILURE() << err << "\nIR:\n" << ir;
    return {};
  }
  if (std::string err = tgtest::runUpToFuse(*unfused, false); !err.empty()) {
    ADD_FAILURE() << err << "\nIR:\n" << ir;
    return {};
  }
  std::vector<HostTensor> args;
  for (size_t i = 0; i < specs.size(); ++i) args.push_back(randomHost(specs[i], seed + static_cast<uint32_t>(i)));
  const std::vector<HostTensor> want = tg::ref::interpret(onlyFunc(*unfused), args);
  const std::vector<HostTensor> got = tg::ref::interpret(onlyFunc(*fused), args);
  EXPECT_EQ(got.size(), want.size());
  for (size_t r = 0; r < std::min(got.size(), want.size()); ++r) {
    EXPECT_TRUE(got[r].nbytes() == want[r].nbytes() &&
                std::memcmp(got[r].data(), want[r].data(), want[r].nbytes()) == 0)
        << "result " << r << " of the fused module differs from the traced one's";
  }
  return countKernels(*fused);
}

struct Case {
  const char* name;
  int inputs;  // x, then weight and bias of the row length
  std::function<std::vector<Tensor>(const std::vector<Tensor>&)> fn;
};

std::vector<Case> normalisations() {
  return {
      {"softmax", 1, [](const std::vector<Tensor>& v) { return std::vector<Tensor>{tg::softmax(v[0])}; }},
      {"log_softmax", 1,
       [](const std::vector<Tensor>& v) {
         Tensor m = tg::max(v[0], {-1}, true);
         Tensor s = v[0] - m;
         return std::vector<Tensor>{s - tg::log(tg::sum(tg::exp(s), {-1}, true))};
       }},
      {"layer_norm", 1, [](const std::vector<Tensor>& v) { return std::vector<Tensor>{tg::layer_norm(v[0])}; }},
      {"layer_norm_affine", 3,
       [](const std::vector<Tensor>& v) { return std::vector<Tensor>{tg::layer_norm(v[0], v[1], v[2])}; }},
      {"rmsnorm", 2,
       [](const std::vector<Tensor>& v) {
         Tensor r = tg::rsqrt(tg::mean(v[0] * v[0], {-1}, true) + 1e-6);
         return std::vector<Tensor>{v[0] * r * v[1]};
       }},
      {"x_minus_mean_and_variance", 1,
       [](const std::vector<Tensor>& v) {
         Tensor d = v[0] - tg::mean(v[0], {-1}, true);
         return std::vector<Tensor>{d, tg::mean(d * d, {-1})};
       }},
  };
}

TEST(RowFusion, EachNormalisationIsOneRowKernel) {
  for (DType dtype : {DType::F32, DType::BF16, DType::F16})
    for (int64_t width : {64, 777}) {  // a multiple of every vector width, and not
      for (const Case& c : normalisations()) {
        SCOPED_TRACE(std::string(c.name) + " " + tg::dtype_name(dtype) + " width " + std::to_string(width));
        std::vector<tg::TensorSpec> specs = {{{6, width}, dtype}};
        for (int i = 1; i < c.inputs; ++i) specs.push_back({{width}, dtype});
        const size_t outputs = std::string(c.name) == "x_minus_mean_and_variance" ? 2 : 1;
        Kernels k = fuseAndCheck(specs, c.fn, outputs, 17);
        EXPECT_EQ(k.row, 1);
        EXPECT_EQ(k.other, 0);
      }
    }
}

TEST(RowFusion, ColumnReductionsAndMatmulResultsStayApart) {
  // sum over the leading dim: a reduction kernel, and its consumer another kernel.
  Kernels column = fuseAndCheck(
      {{{64, 32}, DType::F32}},
      [](const std::vector<Tensor>& v) {
        Tensor e = tg::exp(v[0]);
        return std::vector<Tensor>{e / tg::sum(e, {0}, true)};
      },
      1, 5);
  EXPECT_EQ(column.row, 0);
  EXPECT_EQ(column.other, 3);
  // softmax of x @ w: the matmul is its own kernel, the softmax one row kernel.
  Kernels mm = fuseAndCheck(
      {{{64, 32}, DType::F32}, {{32, 48}, DType::F32}},
      [](const std::vector<Tensor>& v) { return std::vector<Tensor>{tg::softmax(tg::matmul(v[0], v[1]))}; }, 1, 9);
  EXPECT_EQ(mm.row, 1);
  EXPECT_EQ(mm.other, 1);
}

// Rows of no element (a sum over an empty axis, then a consumer): the kernel stores the
// identity, and compiles (its held arrays keep one vector).
TEST(RowFusion, RowsOfNoElementCompileWithNvrtc) {
  std::string why;
  if (!tg::rt::nvrtcAvailable(&why)) GTEST_SKIP() << "NVRTC is not available: " << why;
  const std::string ir = tgtest::traceIr({{{3, 0}, DType::F32}},
                                         [](const std::vector<Tensor>& v) { return std::vector<Tensor>{tg::sum(v[0], {1}) + 1.0f}; }, 1);
  std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
  mlir::OwningOpRef<mlir::ModuleOp> m = mlir::parseSourceString<mlir::ModuleOp>(ir, &tg::compiler::sharedContext());
  ASSERT_TRUE(m);
  tg::compiler::PipelineOptions options;
  tg::rt::Plan plan = tg::compiler::compile(*m, options);
  ASSERT_EQ(plan.kernels.size(), 1u) << plan.str();
  EXPECT_NE(plan.kernels[0].summary.find("row: 3 row(s) of 0 element(s)"), std::string::npos) << plan.str();
  tg::rt::NvrtcResult r = tg::rt::compileCuda(plan.kernels[0].source, plan.kernels[0].name + ".cu", "sm_90a",
                                              tg::rt::defaultNvrtcOptions());
  EXPECT_FALSE(r.cubin.empty());
}

// The row plan and its knobs (Tuning.h, for the GPU machine's rowsweep): softmax keeps
// exp(x - max) between its passes, but x dies where exp is born, so the plan counts one
// register per element, as a plain row would; the register budget and the threads per block
// of a cluster change the plan as asked.
TEST(RowFusion, PlanKnobsChangeThePlan) {
  const auto summary = [&](int64_t length, const tg::codegen::Tuning& tuning) {
    const std::string ir = tgtest::traceIr({{{64, length}, DType::F32}},
                                           [](const std::vector<Tensor>& v) { return std::vector<Tensor>{tg::softmax(v[0])}; }, 1);
    std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
    mlir::OwningOpRef<mlir::ModuleOp> m = mlir::parseSourceString<mlir::ModuleOp>(ir, &tg::compiler::sharedContext());
    EXPECT_TRUE(m);
    tg::compiler::PipelineOptions options;
    options.codegen.arch = "sm_90a";
    options.codegen.tuning = tuning;
    tg::rt::Plan plan = tg::compiler::compile(*m, options);
    EXPECT_EQ(plan.kernels.size(), 1u);
    return plan.kernels.empty() ? std::string() : plan.kernels[0].summary;
  };
  // x and its exp are not live at once: one register per element, 32 of them.
  EXPECT_NE(summary(1024, {}).find("32 thread(s) per row, 8 vector(s) of 4"), std::string::npos) << summary(1024, {});
  tg::codegen::Tuning wide;
  wide.rowRegisters = 8;  // 8 registers: 2 vectors of 4 per thread
  EXPECT_NE(summary(1024, wide).find("128 thread(s) per row, 2 vector(s) of 4"), std::string::npos)
      << summary(1024, wide);
  // 16,384 elements fit one block of 512 threads at 32 registers; 65,536 need a cluster, of
  // 256-thread blocks unless TG_ROW_CLUSTER_GROUP says otherwise.
  EXPECT_NE(summary(16384, {}).find("512 thread(s) per row, 8 vector(s) of 4 per thread, the row held"), std::string::npos)
      << summary(16384, {});
  EXPECT_NE(summary(65536, {}).find("256 thread(s) per row in each of a cluster of 8 blocks, 8 vector(s) of 4"),
            std::string::npos)
      << summary(65536, {});
  tg::codegen::Tuning big;
  big.rowClusterGroup = 512;
  EXPECT_NE(summary(65536, big).find("512 thread(s) per row in each of a cluster of 4 blocks"), std::string::npos)
      << summary(65536, big);
}

TEST(RowFusion, EveryRowKernelCompilesWithNvrtc) {
  std::string why;
  if (!tg::rt::nvrtcAvailable(&why)) GTEST_SKIP() << "NVRTC is not available: " << why;
  int rowKernels = 0;
  for (DType dtype : {DType::F32, DType::BF16})
    // Threads per row: a few (7), a warp (64, 777), a block (4096), a cluster (65536); and a
    // row looped over in chunks (300000).
    for (int64_t width : {7, 64, 777, 4096, 65536, 300000}) {
      for (const Case& c : normalisations()) {
        SCOPED_TRACE(std::string(c.name) + " " + tg::dtype_name(dtype) + " width " + std::to_string(width));
        std::vector<tg::TensorSpec> specs = {{{8, width}, dtype}};
        for (int i = 1; i < c.inputs; ++i) specs.push_back({{width}, dtype});
        const size_t outputs = std::string(c.name) == "x_minus_mean_and_variance" ? 2 : 1;
        const std::string ir = tgtest::traceIr(specs, c.fn, outputs);
        std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
        mlir::OwningOpRef<mlir::ModuleOp> m = mlir::parseSourceString<mlir::ModuleOp>(ir, &tg::compiler::sharedContext());
        ASSERT_TRUE(m);
        for (const char* arch : {"sm_90a", "sm_80"}) {  // planned for each (clusters on sm_90a)
          mlir::OwningOpRef<mlir::ModuleOp> copy = m->clone();
          tg::compiler::PipelineOptions options;
          options.codegen.arch = arch;
          tg::rt::Plan plan = tg::compiler::compile(*copy, options);
          ASSERT_EQ(plan.kernels.size(), 1u);
          EXPECT_NE(plan.kernels[0].summary.find("row:"), std::string::npos) << plan.kernels[0].summary;
          ++rowKernels;
          try {
            tg::rt::NvrtcResult r = tg::rt::compileCuda(plan.kernels[0].source, plan.kernels[0].name + ".cu", arch,
                                                        tg::rt::defaultNvrtcOptions());
            EXPECT_FALSE(r.cubin.empty());
          } catch (const std::exception& e) {
            ADD_FAILURE() << "does not compile for " << arch << ":\n" << e.what() << "\n" << plan.kernels[0].source;
          }
        }
      }
    }
  EXPECT_EQ(rowKernels, 144);
}

}  // namespace
