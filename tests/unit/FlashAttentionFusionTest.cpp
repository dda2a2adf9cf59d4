//===- FlashAttentionFusionTest.cpp - The flash-attention kernel, on the CPU ===//
//
// Prefill-sized softmax(modify(q @ k^T)) @ v traced through the public API becomes one
// flash-attention kernel on sm_90a (templates/attention_flash.cuh): its summary, launch shape
// and tensor maps (a layer's window of a cache as the maps' byte offset), NVRTC compiles it
// for head dims 64, 128 and 256 in bf16 and f16, and sm_80 keeps the separate kernels. The
// fused module, interpreted as the kernel computes, agrees with the unfused one, and gives 0
// for rows whose keys are all masked where the unfused softmax gives NaN. The GPU runs the
// kernel in GpuFlashAttentionTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "FusedReference.h"
#include "RandomGraph.h"
#include "graphs.h"

#include "tg/Compiler/Context.h"
#include "tg/Compiler/Driver.h"
#include "tg/Dialect/TgOps.h"
#include "tg/Reference/HostTensor.h"
#include "tg/Reference/Interpreter.h"
#include "tg/Runtime/KernelCache.h"
#include "tg/Runtime/Nvrtc.h"
#include "tg/tg.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <mutex>
#include <random>

namespace {

using tg::DType;
using tg::Tensor;
using tg::ref::HostTensor;

/// softmax(where(key + shift <= row, q @ k^T / sqrt(d), -inf)) @ v over layer 1 of a
/// [2, heads, keys, d] cache; shift > 0 leaves the first `shift` rows without a key.
std::vector<Tensor> prefill(const std::vector<Tensor>& a, int shift) {
  const Tensor &q = a[0], &kc = a[1], &vc = a[2];
  const int64_t heads = q.shape()[0], rows = q.shape()[1], d = q.shape()[2], S = kc.shape()[2];
  Tensor k = tg::reshape(tg::slice(kc, 0, 1, 2), {heads, S, d});
  Tensor v = tg::reshape(tg::slice(vc, 0, 1, 2), {heads, S, d});
  Tensor s = tg::cast(tg::matmul(q, tg::transpose(k, 1, 2)), DType::F32) * (1.0 / std::sqrt(double(d)));
  Tensor row = tg::iota({1, rows, 1}, 1, DType::I32, q.device()), key = tg::iota({1, 1, S}, 2, DType::I32, q.device());
  s = tg::where(tg::le(key + shift, row), s, -INFINITY);
  return {tg::matmul(tg::cast(tg::softmax(s, -1), v.dtype()), v)};
}
std::vector<Tensor> causal(const std::vector<Tensor>& a) { return prefill(a, 0); }
std::vector<Tensor> firstRowsMasked(const std::vector<Tensor>& a) { return prefill(a, 5); }

std::vector<tg::TensorSpec> specsOf(int64_t heads, int64_t rows, int64_t keys, int64_t d, DType dt) {
  return {{{heads, rows, d}, dt}, {{2, heads, keys, d}, dt}, {{2, heads, keys, d}, dt}};
}

tg::rt::Plan planOf(const std::string& ir, const std::string& arch) {
  std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(ir, &tg::compiler::sharedContext());
  if (!module) throw std::runtime_error("the traced IR does not parse:\n" + ir);
  tg::compiler::PipelineOptions options;
  options.codegen.arch = arch;
  options.fuseAttention = true;
  return tg::compiler::compile(*module, options);
}

TEST(FlashAttentionFusion, PrefillAttentionIsOneFlashKernelThatCompilesForSm90a) {
  struct Case {
    int64_t heads, rows, keys, d;
    DType dtype;
    const char* summary;
  };
  const Case cases[] = {
      {4, 1000, 1000, 128, DType::BF16, "flash attention (wgmma + TMA, 128 x 128 tiles, 3 stages, 1 mask(s) skipping key blocks): 4 x softmax([1000 x 128]"},
      {2, 300, 777, 64, DType::F16, "flash attention (wgmma + TMA, 192 x 128 tiles, 4 stages, 1 mask(s) skipping key blocks): 2 x softmax([300 x 64]"},
      {2, 256, 320, 256, DType::BF16, "flash attention (wgmma + TMA, 128 x 64 tiles, 2 stages, 1 mask(s) skipping key blocks): 2 x softmax([256 x 256]"},
  };
  std::string why;
  const bool nvrtc = tg::rt::nvrtcAvailable(&why);
  for (const Case& c : cases) {
    const std::string ir = tgtest::traceIr(specsOf(c.heads, c.rows, c.keys, c.d, c.dtype), causal, 1);
    SCOPED_TRACE(ir);
    tg::rt::Plan plan = planOf(ir, "sm_90a");
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.str();
    EXPECT_EQ(plan.kernels[0].summary.rfind(c.summary, 0), 0u) << plan.kernels[0].summary;
    const tg::rt::PlanLaunch& l = plan.launches[0];
    const int64_t tileRows = c.d == 64 ? 192 : 128;  // 3 consumer warpgroups for head dim 64, else 2
    EXPECT_EQ(l.dims.grid[0], static_cast<uint32_t>((c.rows + tileRows - 1) / tileRows * c.heads));
    EXPECT_EQ(l.dims.block[0], static_cast<uint32_t>(tileRows / 64 * 128 + 128));
    EXPECT_LE(l.dims.sharedBytes, 232448u);
    // The keys and values of layer 1: the maps start at its first element.
    ASSERT_EQ(l.tensorMaps.size(), 2u);
    const uint64_t layerBytes = static_cast<uint64_t>(c.heads * c.keys * c.d) * 2;
    for (const tg::rt::PlanTensorMap& m : l.tensorMaps) {
      EXPECT_EQ(m.spec.byteOffset + plan.buffers[static_cast<size_t>(l.buffers[static_cast<size_t>(m.arg)])].offset,
                layerBytes);
      EXPECT_EQ(m.spec.dims[0], static_cast<uint64_t>(c.d));
      EXPECT_EQ(m.spec.dims[1], static_cast<uint64_t>(c.keys));
      EXPECT_EQ(m.spec.dims[2], static_cast<uint64_t>(c.heads));
    }
    if (nvrtc) {
      try {
        std::vector<std::string> verbose = tg::rt::defaultNvrtcOptions();
        verbose.push_back("--ptxas-options=--verbose");
        tg::rt::NvrtcResult r = tg::rt::compileCuda(plan.kernels[0].source, plan.kernels[0].name + ".cu", "sm_90a",
                                                    verbose);
        EXPECT_FALSE(r.cubin.empty());
        // ptxas keeps the wgmmas asynchronous (a wgmma in a branch that depends on the thread
        // serialises them all: C7520, 10% slower on the H200) and spills nothing.
        EXPECT_EQ(r.log.find("C7520"), std::string::npos) << r.log;
        EXPECT_NE(r.log.find(" 0 bytes spill stores, 0 bytes spill loads"), std::string::npos) << r.log;
      } catch (const std::exception& e) {
        ADD_FAILURE() << "does not compile: " << e.what();
      }
    }
    // sm_80 has no flash kernel: the scores, the softmax and p @ v stay apart.
    tg::rt::Plan sm80 = planOf(ir, "sm_80");
    EXPECT_GE(sm80.kernels.size(), 3u) << sm80.str();
  }
}

/// The fused module, interpreted as its kernel computes (f32 inside), against the unfused
/// module with f32 inputs; rows without a visible key are 0 fused and NaN unfused.
TEST(FlashAttentionFusion, FusedReferenceMatchesTheUnfusedModuleAndMaskedRowsAreZero) {
  const int64_t heads = 2, rows = 140, keys = 150, d = 64;
  const std::vector<tg::TensorSpec> specs = specsOf(heads, rows, keys, d, DType::BF16);
  std::vector<tg::TensorSpec> wide = specs;
  for (tg::TensorSpec& s : wide) s.dtype = DType::F32;
  const std::string fusedIr = tgtest::traceIr(specs, firstRowsMasked, 1);
  const std::string unfusedIr = tgtest::traceIr(wide, firstRowsMasked, 1);
  std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
  mlir::MLIRContext& context = tg::compiler::sharedContext();
  mlir::OwningOpRef<mlir::ModuleOp> fused = mlir::parseSourceString<mlir::ModuleOp>(fusedIr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> unfused = mlir::parseSourceString<mlir::ModuleOp>(unfusedIr, &context);
  ASSERT_TRUE(fused && unfused);
  ASSERT_EQ(tgtest::runUpToFuse(*fused, true, true, /*fuseAttention=*/true), "");
  ASSERT_EQ(tgtest::runUpToFuse(*unfused, false), "");
  int attention = 0;
  fused->walk([&](tg::ir::FusionOp f) { attention += f.getKind() == tg::ir::FusionKind::attention; });
  ASSERT_EQ(attention, 1);

  std::mt19937 rng(9);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<HostTensor> args, wideArgs;
  for (const tg::TensorSpec& s : specs) {
    std::vector<float> v(static_cast<size_t>(tg::shape_numel(s.shape)));
    for (float& x : v) x = normal(rng);
    args.push_back(HostTensor::fromFloats(s.dtype, s.shape, v));
    wideArgs.push_back(HostTensor::fromFloats(DType::F32, s.shape, args.back().toFloats()));
  }
  tg::ref::InterpretOptions f32Inside;
  f32Inside.f32InsideFusions = true;
  auto first = [](mlir::ModuleOp m) { return *m.getOps<mlir::func::FuncOp>().begin(); };
  const std::vector<float> got = tg::ref::interpret(first(*fused), args, f32Inside)[0].toFloats();
  const std::vector<float> want = tg::ref::interpret(first(*unfused), wideArgs)[0].toFloats();
  ASSERT_EQ(got.size(), want.size());
  const double eps = std::ldexp(1.0, -8);
  int bad = 0;
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t m = 0; m < rows; ++m)
      for (int64_t j = 0; j < d; ++j) {
        const size_t i = static_cast<size_t>((h * rows + m) * d + j);
        if (m < 5) {  // no key visible
          EXPECT_EQ(got[i], 0.0f) << i;
          EXPECT_TRUE(std::isnan(want[i])) << i;
        } else if (std::fabs(double(got[i]) - want[i]) > 2 * eps * (std::fabs(want[i]) + 4.0) + 1e-6 && bad++ < 5) {
          ADD_FAILURE() << "element " << i << ": " << got[i] << " vs " << want[i];
        }
      }
  EXPECT_EQ(bad, 0);
}

// Attention as a transformer block writes it (examples/graphs.h): q, k and v split into
// heads from one projection's output by a reshape, slices and transposes. The keys and
// values, not rows in memory, are copied into rows before the flash kernel (whose maps read
// the copies); q is read through its layout in the kernel; the heads merged back are a copy.
// The fused module, interpreted, matches the unfused one.
TEST(FlashAttentionFusion, HeadsSplitFromAProjectionAreCopiedIntoRows) {
  const int64_t B = 2, S = 300, H = 4, hd = 64;
  const std::vector<tg::TensorSpec> specs = {{{B, S, 3 * H * hd}, DType::BF16}};
  auto fn = [](const std::vector<Tensor>& a) { return std::vector<Tensor>{tg_graphs::causal_self_attention(a[0], H)}; };
  const std::string ir = tgtest::traceIr(specs, fn, 1);
  SCOPED_TRACE(ir);
  const tg::rt::Plan plan = planOf(ir, "sm_90a");
  ASSERT_EQ(plan.launches.size(), 4u) << plan.str();
  std::vector<std::string> kinds;
  for (const tg::rt::PlanLaunch& l : plan.launches) {
    const std::string& summary = plan.kernels[static_cast<size_t>(l.kernel)].summary;
    kinds.push_back(summary.substr(0, summary.find(' ')));
  }
  EXPECT_EQ(kinds, (std::vector<std::string>{"elementwise:", "elementwise:", "flash", "elementwise:"})) << plan.str();
  const tg::rt::PlanLaunch& flash = plan.launches[2];
  ASSERT_EQ(flash.tensorMaps.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {  // the keys (the first copy's result), the values (the second's)
    const tg::rt::PlanTensorMap& m = flash.tensorMaps[i];
    EXPECT_EQ(flash.buffers[static_cast<size_t>(m.arg)], plan.launches[i].buffers.back()) << plan.str();
    EXPECT_EQ(m.spec.dims[0], static_cast<uint64_t>(hd));
    EXPECT_EQ(m.spec.dims[1], static_cast<uint64_t>(S));
    EXPECT_EQ(m.spec.dims[2], static_cast<uint64_t>(B * H));
  }

  // The fused module (f32 inside) against the unfused one with f32 inputs.
  std::vector<tg::TensorSpec> wide = specs;
  wide[0].dtype = DType::F32;
  const std::string unfusedIr = tgtest::traceIr(wide, fn, 1);
  std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
  mlir::MLIRContext& context = tg::compiler::sharedContext();
  mlir::OwningOpRef<mlir::ModuleOp> fused = mlir::parseSourceString<mlir::ModuleOp>(ir, &context);
  mlir::OwningOpRef<mlir::ModuleOp> unfused = mlir::parseSourceString<mlir::ModuleOp>(unfusedIr, &context);
  ASSERT_TRUE(fused && unfused);
  ASSERT_EQ(tgtest::runUpToFuse(*fused, true, true, /*fuseAttention=*/true), "");
  ASSERT_EQ(tgtest::runUpToFuse(*unfused, false), "");
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(B * S * 3 * H * hd));
  for (float& x : v) x = normal(rng);
  const HostTensor arg = HostTensor::fromFloats(DType::BF16, specs[0].shape, v);
  const HostTensor wideArg = HostTensor::fromFloats(DType::F32, specs[0].shape, arg.toFloats());
  tg::ref::InterpretOptions f32Inside;
  f32Inside.f32InsideFusions = true;
  auto first = [](mlir::ModuleOp m) { return *m.getOps<mlir::func::FuncOp>().begin(); };
  const std::vector<float> got = tg::ref::interpret(first(*fused), std::vector<HostTensor>{arg}, f32Inside)[0].toFloats();
  const std::vector<float> want = tg::ref::interpret(first(*unfused), std::vector<HostTensor>{wideArg})[0].toFloats();
  ASSERT_EQ(got.size(), want.size());
  const double eps = std::ldexp(1.0, -8);
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(double(got[i]) - want[i]) <= 2 * eps * (std::fabs(want[i]) + 4.0) + 1e-6) && bad++ < 5)
      ADD_FAILURE() << "element " << i << ": " << got[i] << " vs " << want[i];
  EXPECT_EQ(bad, 0);
}

}  // namespace
