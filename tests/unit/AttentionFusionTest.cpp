//===- AttentionFusionTest.cpp - tg-fuse-attention and its kernel, on the CPU ===//
//
// Decode-sized softmax(modify(q @ k^T)) @ v traced through the public API: the split-key
// kernel and its combine (flash-decoding: the chunks, a scratch buffer) where it takes the
// problem, else, with PipelineOptions::decodeAttention, one cluster kernel (its summary: the
// cluster, the keys per block, the loads); NVRTC compiles them for sm_90a and sm_80; the fused
// module, interpreted with f32 inside its kernels as the kernels compute, agrees with the
// unfused one; prefill-sized attention on sm_80, and what neither kernel takes under the
// default options, keep the separate kernels. The GPU runs the kernels in GpuAttentionTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "FusedReference.h"
#include "RandomGraph.h"
#include "Rotary.h"

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
#include <regex>

namespace {

using tg::DType;
using tg::Tensor;
using tg::ref::HostTensor;

/// softmax(where(key <= pos + row, q @ k^T / sqrt(d), -inf)) @ v over one layer of a cache.
std::vector<Tensor> decodeAttention(const std::vector<Tensor>& a) {
  const Tensor &q = a[0], &kc = a[1], &vc = a[2], &pos = a[3];
  const int64_t heads = q.shape()[0], rows = q.shape()[1], d = q.shape()[2], S = kc.shape()[2];
  Tensor k = tg::reshape(tg::slice(kc, 0, 1, 2), {heads, S, d});
  Tensor v = tg::reshape(tg::slice(vc, 0, 1, 2), {heads, S, vc.shape()[3]});
  Tensor s = tg::cast(tg::matmul(q, tg::transpose(k, 1, 2)), DType::F32) * (1.0 / std::sqrt(double(d)));
  Tensor queryPos = tg::reshape(tg::iota({rows}, 0, DType::I32, q.device()), {1, rows, 1}) + pos;
  s = tg::where(tg::le(tg::iota({1, 1, S}, 2, DType::I32, q.device()), queryPos), s, -INFINITY);
  return {tg::matmul(tg::cast(tg::softmax(s, -1), v.dtype()), v)};
}

/// decodeAttention of a rotary-embedded q (rotate-half form, angles from iotas), as the
/// decoder writes it: the embedding is computed by the attention kernel where it reads q.
std::vector<Tensor> ropeAttention(const std::vector<Tensor>& a) {
  return decodeAttention({tgtest::rotateHalf(a[0]), a[1], a[2], a[3]});
}

std::vector<tg::TensorSpec> specsOf(int64_t heads, int64_t rows, int64_t keys, int64_t d, int64_t dv, DType dt) {
  return {{{heads, rows, d}, dt}, {{2, heads, keys, d}, dt}, {{2, heads, keys, dv}, dt}, {{}, DType::I32}};
}

tg::rt::Plan planOf(const std::string& ir, const std::string& arch, bool fuseAttention = true) {
  std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(ir, &tg::compiler::sharedContext());
  if (!module) throw std::runtime_error("the traced IR does not parse:\n" + ir);
  tg::compiler::PipelineOptions options;
  options.codegen.arch = arch;
  options.fuseAttention = options.decodeAttention = fuseAttention;
  return tg::compiler::compile(*module, options);
}

/// Few-row attention kernels: cluster kernels and split-key ones (not their combines).
int attentionKernels(const tg::rt::Plan& plan) {
  int n = 0;
  for (const tg::rt::KernelSource& k : plan.kernels)
    n += k.summary.rfind("attention (", 0) == 0 || k.summary.rfind("split-key attention (", 0) == 0;
  return n;
}

void expectCompiles(const tg::rt::Plan& plan, const std::string& arch) {
  std::string why;
  if (!tg::rt::nvrtcAvailable(&why)) return;
  for (const tg::rt::KernelSource& k : plan.kernels) {
    try {
      std::vector<std::string> verbose = tg::rt::defaultNvrtcOptions();
      verbose.push_back("--ptxas-options=--verbose");
      const tg::rt::NvrtcResult r = tg::rt::compileCuda(k.source, k.name + ".cu", arch, verbose);
      EXPECT_FALSE(r.cubin.empty());
      // The split-key kernels spill nothing (its register cap for two blocks a multiprocessor
      // holds plain few-row tiles; with a modifier there is no cap). The cluster kernel's 512
      // threads may spill a little (36 bytes with 16 rows of 96).
      const bool split = k.summary.rfind("split-key", 0) == 0 || k.summary.rfind("the combine of split-key", 0) == 0;
      if (split)
        EXPECT_FALSE(std::regex_search(r.log, std::regex("[1-9][0-9]* bytes spill (stores|loads)"))) << k.name << ": "
                                                                                                     << r.log;
    } catch (const std::exception& e) {
      ADD_FAILURE() << k.name << " does not compile for " << arch << ": " << e.what();
    }
  }
}

TEST(AttentionFusion, DecodeAttentionIsSplitOverTheKeysOrOneClusterKernel) {
  struct Case {
    int64_t heads, rows, keys, d, dv;
    DType dtype;
    const char* sm90;  // the kernel's summary on sm_90a
    bool sm80 = true;  // whether the kernel takes the problem on sm_80 (a cluster kernel: one block)
  };
  const Case cases[] = {
      {4, 4, 640, 128, 128, DType::BF16, "split-key attention (10 chunk(s) of 64 keys, 256 threads a block"},
      {2, 1, 100, 64, 64, DType::F32, "split-key attention (2 chunk(s) of 56 keys, 256 threads a block"},
      {16, 4, 32768, 128, 128, DType::BF16, "split-key attention (15 chunk(s) of 2192 keys, 256 threads a block"},
      {3, 16, 1000, 96, 32, DType::F16, "attention (8 block(s) a batch, 125 key(s) each, 16-byte loads, staged)", false},
      {2, 4, 200, 60, 60, DType::BF16, "attention (4 block(s) a batch, 50 key(s) each, element loads)"},
      {1, 8, 9, 128, 128, DType::BF16, "split-key attention (1 chunk(s) of 12 keys, 256 threads a block"},
  };
  for (const Case& c : cases) {
    const std::string ir = tgtest::traceIr(specsOf(c.heads, c.rows, c.keys, c.d, c.dv, c.dtype), decodeAttention, 1);
    SCOPED_TRACE(ir);
    const bool split = std::string(c.sm90).rfind("split-key", 0) == 0;
    for (const std::string arch : {"sm_90a", "sm_80"}) {
      tg::rt::Plan plan = planOf(ir, arch);
      if (arch == "sm_80" && !c.sm80) {  // 16 x 1000 scores: 64000 bytes, more than a block holds
        EXPECT_EQ(attentionKernels(plan), 0) << plan.str();
        continue;
      }
      ASSERT_EQ(attentionKernels(plan), 1) << plan.str();
      const std::string& summary = plan.kernels[0].summary;
      if (split) {
        // The chunks' kernel, then the combine, on the same buffers: the scratch last.
        ASSERT_EQ(plan.kernels.size(), 2u) << plan.str();
        ASSERT_EQ(plan.launches.size(), 2u) << plan.str();
        EXPECT_EQ(summary.rfind(c.sm90, 0), 0u) << summary;
        EXPECT_EQ(plan.kernels[1].summary, "the combine of " + summary);
        EXPECT_EQ(plan.launches[0].buffers, plan.launches[1].buffers);
        const tg::rt::PlanBuffer& scratch = plan.buffers[static_cast<size_t>(plan.launches[0].buffers.back())];
        EXPECT_EQ(scratch.kind, tg::rt::PlanBuffer::Kind::Arena);
        EXPECT_EQ(scratch.bytes, static_cast<size_t>(c.heads * plan.launches[0].dims.grid[0] * c.rows * (c.d + 2) * 4));
        EXPECT_LE(scratch.offset + scratch.bytes, plan.arenaBytes);
        EXPECT_EQ(plan.launches[1].dims.grid[1], static_cast<uint32_t>(c.heads));
      } else {
        ASSERT_EQ(plan.kernels.size(), 1u) << plan.str();
        if (arch == "sm_90a") EXPECT_EQ(summary.rfind(c.sm90, 0), 0u) << summary;
        else EXPECT_NE(summary.find("(1 block(s) a batch, " + std::to_string(c.keys) + " key(s) each"), std::string::npos) << summary;
      }
      EXPECT_EQ(plan.launches[0].dims.grid[1], static_cast<uint32_t>(c.heads));
      expectCompiles(plan, arch);
    }
    // Without the options: the scores, the softmax and p @ v apart. By default the split-key
    // kernel takes what it can; the cluster kernel needs PipelineOptions::decodeAttention.
    EXPECT_EQ(attentionKernels(planOf(ir, "sm_90a", /*fuseAttention=*/false)), 0);
    {
      std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
      mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(ir, &tg::compiler::sharedContext());
      tg::compiler::PipelineOptions defaults;
      defaults.codegen.arch = "sm_90a";
      EXPECT_EQ(attentionKernels(tg::compiler::compile(*module, defaults)), split ? 1 : 0);
    }
  }
}

TEST(AttentionFusion, RotaryEmbeddedQueriesAreComputedInTheKernel) {
  const std::string ir = tgtest::traceIr(specsOf(4, 4, 640, 128, 128, DType::BF16), ropeAttention, 1);
  tg::rt::Plan plan = planOf(ir, "sm_90a");
  EXPECT_EQ(plan.kernels.size(), 2u) << plan.str();  // the split-key kernel and its combine
  ASSERT_EQ(attentionKernels(plan), 1) << plan.str();
  expectCompiles(plan, "sm_90a");
}

TEST(AttentionFusion, IndicesIntoAnInputBeyond32BitsAre64Bit) {
  // A cache of 7000 layers (2.3e9 elements; traced and planned, never allocated): the kernel's
  // index type must hold every index into an input, not only the scores' and the result's.
  std::vector<tg::TensorSpec> specs = specsOf(4, 4, 640, 128, 128, DType::BF16);
  specs[1].shape[0] = specs[2].shape[0] = 7000;
  tg::rt::Plan plan = planOf(tgtest::traceIr(specs, decodeAttention, 1), "sm_90a");
  ASSERT_EQ(attentionKernels(plan), 1) << plan.str();
  EXPECT_NE(plan.kernels[0].source.find("typedef unsigned long long EIndex;"), std::string::npos);
  tg::rt::Plan small = planOf(tgtest::traceIr(specsOf(4, 4, 640, 128, 128, DType::BF16), decodeAttention, 1), "sm_90a");
  EXPECT_NE(small.kernels[0].source.find("typedef unsigned EIndex;"), std::string::npos);
}

TEST(AttentionFusion, PrefillSizedAttentionTakesTheFlashKernelOrKeepsItsKernels) {
  // 512 query rows per head: more than this kernel takes. On sm_90a the flash kernel takes
  // them (FlashAttentionFusionTest.cpp); on sm_80, and with a value dim it does not take
  // (32 for 64), the scores, the softmax and p @ v stay apart.
  const std::string ir = tgtest::traceIr(specsOf(4, 512, 512, 64, 64, DType::BF16), decodeAttention, 1);
  tg::rt::Plan flash = planOf(ir, "sm_90a");
  EXPECT_EQ(attentionKernels(flash), 0) << flash.str();
  ASSERT_EQ(flash.kernels.size(), 1u) << flash.str();
  EXPECT_EQ(flash.kernels[0].summary.rfind("flash attention", 0), 0u) << flash.str();
  tg::rt::Plan sm80 = planOf(ir, "sm_80");
  EXPECT_GE(sm80.kernels.size(), 3u) << sm80.str();
  tg::rt::Plan narrow = planOf(tgtest::traceIr(specsOf(4, 512, 512, 64, 32, DType::BF16), decodeAttention, 1), "sm_90a");
  EXPECT_GE(narrow.kernels.size(), 3u) << narrow.str();
}

/// The fused module, interpreted as its kernels compute (f32 inside, the scores unrounded),
/// against the unfused module with f32 inputs: within the rounding of p and of the result.
TEST(AttentionFusion, FusedReferenceMatchesTheUnfusedModule) {
  struct Case {
    int64_t heads, rows, keys, d;
    DType dtype;
    bool rope = false;
  };
  for (const Case& c : {Case{4, 4, 640, 128, DType::BF16}, Case{2, 3, 77, 32, DType::F32},
                        Case{4, 4, 640, 128, DType::BF16, true}}) {
    const tgtest::ProgramFn fn = c.rope ? tgtest::ProgramFn(ropeAttention) : tgtest::ProgramFn(decodeAttention);
    const std::vector<tg::TensorSpec> specs = specsOf(c.heads, c.rows, c.keys, c.d, c.d, c.dtype);
    std::vector<tg::TensorSpec> wide = specs;
    for (size_t i = 0; i < 3; ++i) wide[i].dtype = DType::F32;
    const std::string fusedIr = tgtest::traceIr(specs, fn, 1);
    const std::string unfusedIr = tgtest::traceIr(wide, fn, 1);
    std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
    mlir::MLIRContext& context = tg::compiler::sharedContext();
    mlir::OwningOpRef<mlir::ModuleOp> fused = mlir::parseSourceString<mlir::ModuleOp>(fusedIr, &context);
    mlir::OwningOpRef<mlir::ModuleOp> unfused = mlir::parseSourceString<mlir::ModuleOp>(unfusedIr, &context);
    ASSERT_TRUE(fused && unfused);
    ASSERT_EQ(tgtest::runUpToFuse(*fused, true, true, /*fuseAttention=*/true), "");
    ASSERT_EQ(tgtest::runUpToFuse(*unfused, false), "");
    int attention = 0;
    fused->walk([&](tg::ir::FusionOp f) { attention += f.getKind() == tg::ir::FusionKind::attention; });
    EXPECT_EQ(attention, 1);

    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<HostTensor> args, wideArgs;
    for (size_t i = 0; i < 3; ++i) {
      std::vector<float> v(static_cast<size_t>(tg::shape_numel(specs[i].shape)));
      for (float& x : v) x = normal(rng);
      args.push_back(HostTensor::fromFloats(specs[i].dtype, specs[i].shape, v));
      wideArgs.push_back(HostTensor::fromFloats(DType::F32, specs[i].shape, args.back().toFloats()));
    }
    const std::vector<int32_t> pos{static_cast<int32_t>(c.keys / 2)};
    args.push_back(HostTensor::fromInts(DType::I32, {}, pos));
    wideArgs.push_back(args.back());
    tg::ref::InterpretOptions f32Inside;
    f32Inside.f32InsideFusions = true;
    auto first = [](mlir::ModuleOp m) { return *m.getOps<mlir::func::FuncOp>().begin(); };
    const std::vector<float> got = tg::ref::interpret(first(*fused), args, f32Inside)[0].toFloats();
    const std::vector<float> want = tg::ref::interpret(first(*unfused), wideArgs)[0].toFloats();
    ASSERT_EQ(got.size(), want.size());
    const double eps = c.dtype == DType::F32 ? 1e-6 : std::ldexp(1.0, -8);
    double vmax = 0;
    for (float x : wideArgs[2].toFloats()) vmax = std::max(vmax, double(std::fabs(x)));
    int bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
      if (std::fabs(double(got[i]) - want[i]) > 2 * eps * (std::fabs(want[i]) + vmax) + 1e-6 && bad++ < 5)
        ADD_FAILURE() << "element " << i << ": " << got[i] << " vs " << want[i];
    EXPECT_EQ(bad, 0);
  }
}

}  // namespace
