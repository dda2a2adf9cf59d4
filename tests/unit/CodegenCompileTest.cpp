//===- CodegenCompileTest.cpp - Every generated kernel compiles; kernel counts (CPU) ===//
//
// For every case of tests/common/OpCases.h (every op kind of the dialect with every dtype it
// accepts: elementwise unary/binary/compare/select, cast between every pair of dtypes,
// broadcast/transpose/reshape, reductions over several axis sets, softmax, layer_norm, matmul
// with transposed operands and batches): trace a one-op graph through the public API
// (tg::jit(fn).trace_ir), compile it with compiler::compile for "sm_90a", check the plan
// (result type, launches that name existing kernels and buffers) and compile every kernel's
// CUDA C++ with NVRTC for sm_90a AND sm_80 with --fmad=false: the cubin must be non-empty.
// A coverage test checks, against the shared shape rules, that the table holds exactly the
// (op, dtype) pairs the dialect accepts. A handful of random programs (fused and unfused)
// compile too.
//
// Then kernel counts through compiler::compile (no GPU needed): the README's chain is one
// kernel, a two-output diamond is one kernel, x + bias[N] followed by gelu is one kernel, the
// chain with fuse=false is one kernel per elementwise op, sum(exp(x)) is two kernels.
//
// NVRTC is opened at run time; where it is missing the NVRTC tests skip (the kernel-count
// tests still run).
//
//===----------------------------------------------------------------------===//
#include "OpCases.h"
#include "RandomGraph.h"

#include "tg/Compiler/Context.h"
#include "tg/Compiler/Driver.h"
#include "tg/Dialect/OpDescription.h"
#include "tg/Graph/ShapeRules.h"
#include "tg/Runtime/KernelCache.h"
#include "tg/Runtime/Nvrtc.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace {

using tg::DType;
using tg::Tensor;
using tg::graph::OpKind;

const std::vector<std::string> kArchs = {"sm_90a", "sm_80"};

struct Compiled {
  tg::rt::Plan plan;
  tg::graph::TensorType firstResult;  // of the traced function
  size_t numResults = 0;
};

/// Parses `ir` and compiles it with compiler::compile (throws tg::Error on failure).
Compiled compileIr(const std::string& ir, bool fuse = true, const std::string& arch = "sm_90a",
                   const tg::codegen::Tuning& tuning = {}) {
  std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
  mlir::MLIRContext& context = tg::compiler::sharedContext();
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(ir, &context);
  if (!module) throw std::runtime_error("the traced IR does not parse:\n" + ir);
  Compiled c;
  mlir::func::FuncOp func = *module->getOps<mlir::func::FuncOp>().begin();
  c.numResults = func.getFunctionType().getNumResults();
  c.firstResult = *tg::ir::typeOf(func.getFunctionType().getResult(0));
  tg::compiler::PipelineOptions options;
  options.fuse = fuse;
  options.codegen.arch = arch;
  options.codegen.tuning = tuning;
  c.plan = tg::compiler::compile(*module, options);
  return c;
}

/// The IR of a one-result function of the given inputs.
std::string irOf(const std::vector<tg::TensorSpec>& specs,
                 std::function<Tensor(const std::vector<Tensor>&)> fn) {
  return tgtest::traceIr(specs, [fn](const std::vector<Tensor>& a) { return std::vector<Tensor>{fn(a)}; },
                         1);
}

/// Checks the plan's structure: launches name existing kernels and buffers, results exist.
void checkPlanShape(const tg::rt::Plan& plan) {
  EXPECT_NE(std::find(kArchs.begin(), kArchs.end(), plan.arch), kArchs.end()) << plan.arch;
  for (const tg::rt::PlanLaunch& l : plan.launches) {
    ASSERT_GE(l.kernel, 0);
    ASSERT_LT(l.kernel, static_cast<int>(plan.kernels.size()));
    for (int b : l.buffers) {
      ASSERT_GE(b, 0);
      ASSERT_LT(b, static_cast<int>(plan.buffers.size()));
    }
    EXPECT_GE(l.dims.grid[0] * l.dims.grid[1] * l.dims.grid[2], 1u);
    EXPECT_GE(l.dims.block[0], 32u);
  }
  for (int b : plan.outputs) {
    ASSERT_GE(b, 0);
    ASSERT_LT(b, static_cast<int>(plan.buffers.size()));
  }
  // Every kernel is launched at least once.
  std::set<int> launched;
  for (const tg::rt::PlanLaunch& l : plan.launches) launched.insert(l.kernel);
  EXPECT_EQ(launched.size(), plan.kernels.size());
  for (const tg::rt::KernelSource& k : plan.kernels) {
    EXPECT_NE(k.source.find("#define TG_NAME " + k.name), std::string::npos) << k.name;
    EXPECT_NE(k.source.find("__global__"), std::string::npos) << k.name;
  }
}

/// NVRTC-compiles every kernel of `plan` for the plan's target and, for kernels that need no
/// Hopper feature (all but the wgmma path), for sm_80 too (each distinct source once per
/// process). Returns the number of NVRTC compilations done.
int nvrtcAll(const tg::rt::Plan& plan) {
  static std::set<std::string> done;
  int n = 0;
  for (const tg::rt::KernelSource& k : plan.kernels)
    for (const std::string& arch : kArchs) {
      if (arch != plan.arch && k.source.find("wgmma") != std::string::npos) continue;
      if (!done.insert(arch + "\n" + k.source).second) continue;
      ++n;
      try {
        tg::rt::NvrtcResult r = tg::rt::compileCuda(k.source, k.name + ".cu", arch, tg::rt::defaultNvrtcOptions());
        EXPECT_FALSE(r.cubin.empty()) << k.name << " for " << arch << ": empty cubin";
        EXPECT_FALSE(r.ptx.empty()) << k.name << " for " << arch << ": empty PTX";
      } catch (const std::exception& e) {
        ADD_FAILURE() << k.name << " does not compile for " << arch << ":\n"
                      << e.what() << "\n--- source ---\n" << k.source;
      }
    }
  return n;
}

bool requireNvrtc() {
  std::string why;
  if (tg::rt::nvrtcAvailable(&why)) return true;
  std::printf("NVRTC unavailable: %s\n", why.c_str());
  return false;
}

TEST(CodegenCompile, EveryOpAndDTypeCompilesForSm90aAndSm80) {
  if (!requireNvrtc()) GTEST_SKIP() << "NVRTC is not available";
  int cases = 0, kernels = 0, compilations = 0;
  for (const tgtest::OpCase& c : tgtest::opCases()) {
    SCOPED_TRACE(c.name);
    ++cases;
    for (const std::string& arch : kArchs) {
    Compiled compiled;
    try {
      compiled = compileIr(irOf(c.inputs, c.fn), true, arch);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "compiler::compile for " << arch << " failed: " << e.what();
      continue;
    }
    const tg::rt::Plan& plan = compiled.plan;
    checkPlanShape(plan);
    ASSERT_EQ(plan.outputs.size(), 1u);
    EXPECT_EQ(plan.outputDTypes.at(0), compiled.firstResult.dtype);
    EXPECT_EQ(plan.outputShapes.at(0), compiled.firstResult.shape);
    // Only pure layout ops that are no-ops on memory (reshape; a cast to the same dtype) may
    // need no kernel.
    const bool mayBeFree = c.op == "reshape" ||
                           (c.op == "cast" && c.name.find(std::string(tg::dtype_name(c.dtype)) + "->" +
                                                          tg::dtype_name(c.dtype)) != std::string::npos);
    if (!mayBeFree) {
      EXPECT_GE(plan.kernels.size(), 1u) << plan.str();
    }
    kernels += static_cast<int>(plan.kernels.size());
    compilations += nvrtcAll(plan);
    }
  }
  std::printf("[          ] %d cases, %d kernels, %d NVRTC compilations\n", cases, kernels,
              compilations);
  EXPECT_GT(cases, 200);
}

TEST(CodegenCompile, RandomProgramsCompileFusedAndUnfused) {
  if (!requireNvrtc()) GTEST_SKIP() << "NVRTC is not available";
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    tgtest::RandomProgram p = tgtest::randomProgram(seed);
    SCOPED_TRACE(p.description);
    for (bool fuse : {true, false}) {
      try {
        Compiled c = compileIr(tgtest::traceIr(p), fuse);
        checkPlanShape(c.plan);
        EXPECT_EQ(c.plan.outputs.size(), p.numOutputs);
        nvrtcAll(c.plan);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "fuse=" << fuse << ": " << e.what();
      }
    }
  }
}

/// Issue 13, bug 2: the fuser clones splat constants (and layout chains over them) into the
/// kernels that read them, so a reduction of a value that canonicalization folded to a splat
/// reads no kernel input at all. Each such reduction must compile to one kernel that reads the
/// constant as a literal.
TEST(CodegenCompile, ReductionsOfFoldedConstantsCompile) {
  if (!requireNvrtc()) GTEST_SKIP() << "NVRTC is not available";
  const std::vector<std::string> cases = {
      // The reproducer of the issue: tanh(1) folds to a splat; its mean over axis 0.
      R"(func.func @f(%a: tensor<133x1xf32>) -> tensor<1x1xf32> {
        %c = tg.constant dense<1.0> : tensor<133x1xf32>
        %t = "tg.tanh"(%c) : (tensor<133x1xf32>) -> tensor<133x1xf32>
        %r = tg.reduce_mean %t axes = [0] keep_dims : tensor<133x1xf32> to tensor<1x1xf32>
        return %r : tensor<1x1xf32>
      })",
      // Through a broadcast, in bf16, summed over every axis.
      R"(func.func @f() -> tensor<bf16> {
        %c = tg.constant dense<0.5> : tensor<7xbf16>
        %b = tg.broadcast %c dims = [1] : tensor<7xbf16> to tensor<5x7xbf16>
        %r = tg.reduce_sum %b axes = [0, 1] : tensor<5x7xbf16> to tensor<bf16>
        return %r : tensor<bf16>
      })",
      // Through a transpose, a max next to a reduction of a real input.
      R"(func.func @f(%x: tensor<4x6xf32>) -> (tensor<6xf32>, tensor<6xf32>) {
        %c = tg.constant dense<-2.0> : tensor<4x6xf32>
        %t = tg.transpose %c perm = [1, 0] : tensor<4x6xf32> to tensor<6x4xf32>
        %m = tg.reduce_max %t axes = [1] : tensor<6x4xf32> to tensor<6xf32>
        %s = tg.reduce_sum %x axes = [0] : tensor<4x6xf32> to tensor<6xf32>
        return %m, %s : tensor<6xf32>, tensor<6xf32>
      })",
      // i32, and a long reduction (a block per output, split over blocks).
      R"(func.func @f() -> tensor<i32> {
        %c = tg.constant dense<3> : tensor<100000xi32>
        %r = tg.reduce_sum %c axes = [0] : tensor<100000xi32> to tensor<i32>
        return %r : tensor<i32>
      })",
  };
  for (const std::string& ir : cases) {
    SCOPED_TRACE(ir);
    Compiled c;
    try {
      c = compileIr(ir);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "compiler::compile failed: " << e.what();
      continue;
    }
    checkPlanShape(c.plan);
    nvrtcAll(c.plan);
    // One reduction kernel per reduction; those of splats take no input buffer.
    int ofSplats = 0;
    for (const tg::rt::PlanLaunch& l : c.plan.launches) {
      const tg::rt::KernelSource& k = c.plan.kernels.at(l.kernel);
      EXPECT_NE(k.name.find("_reduce_"), std::string::npos) << k.name;
      if (k.source.find("__restrict__ in") == std::string::npos) {
        ++ofSplats;
        EXPECT_EQ(l.buffers.size(), 1u) << "reads nothing, writes its result: " << k.name;
      }
    }
    EXPECT_EQ(ofSplats, 1);
  }
}

/// The case table holds exactly the (op, dtype) pairs the shape rules accept.
TEST(CodegenCompile, CaseTableCoversEveryOpKindAndAcceptedDType) {
  using tg::graph::OpAttrs;
  using tg::graph::TensorType;
  const std::vector<DType> all = {DType::F32, DType::F16, DType::BF16, DType::I32, DType::Bool};
  std::set<std::pair<std::string, DType>> covered;
  std::set<std::string> casts;
  for (const tgtest::OpCase& c : tgtest::opCases()) {
    std::string op = c.op.rfind("gelu", 0) == 0 ? "gelu" : c.op;
    covered.insert({op, c.dtype});
    if (c.op == "cast") casts.insert(c.name);
  }
  for (int k = static_cast<int>(OpKind::Neg); k <= static_cast<int>(OpKind::Matmul); ++k) {
    const OpKind kind = static_cast<OpKind>(k);
    const std::string name(tg::graph::opName(kind));
    for (DType d : all) {
      OpAttrs attrs;
      std::vector<TensorType> operands;
      switch (kind) {
        case OpKind::Select:
          operands = {{DType::Bool, {3}}, {d, {3}}, {d, {3}}};
          break;
        case OpKind::Broadcast:
          attrs.shape = {2, 3};
          attrs.dims = {1};
          operands = {{d, {3}}};
          break;
        case OpKind::Reshape:
          attrs.shape = {3, 2};
          operands = {{d, {2, 3}}};
          break;
        case OpKind::Transpose:
          attrs.perm = {1, 0};
          operands = {{d, {2, 3}}};
          break;
        case OpKind::ReduceSum:
        case OpKind::ReduceMax:
        case OpKind::ReduceMean:
        case OpKind::ReduceMin:
        case OpKind::ReduceProd:
        case OpKind::ArgMax:
        case OpKind::ArgMin:
          attrs.axes = {0};
          operands = {{d, {2, 3}}};
          break;
        case OpKind::Softmax:
          attrs.axis = 0;
          operands = {{d, {2, 3}}};
          break;
        case OpKind::Concat:
          attrs.axis = 0;
          operands = {{d, {3}}, {d, {2}}};
          break;
        case OpKind::Gather:
          attrs.axis = 0;
          attrs.checkId = 1;
          operands = {{d, {3}}, {DType::I32, {2}}};
          break;
        case OpKind::DynamicSlice:
          attrs.axis = 0;
          attrs.checkId = 1;
          attrs.shape = {2};
          operands = {{d, {3}}, {DType::I32, {}}};
          break;
        case OpKind::DynamicUpdateSlice:
          attrs.axis = 0;
          attrs.checkId = 1;
          attrs.starts = {0};
          operands = {{d, {3}}, {d, {2}}, {DType::I32, {}}};
          break;
        case OpKind::Iota:
          attrs.axis = 0;
          attrs.dtype = d;
          attrs.shape = {3};
          break;
        case OpKind::Slice:
          attrs.starts = {1};
          attrs.limits = {3};
          attrs.steps = {1};
          operands = {{d, {3}}};
          break;
        case OpKind::Matmul:
          operands = {{d, {2, 3}}, {d, {3, 2}}};
          break;
        case OpKind::Cast:
          attrs.dtype = DType::F32;
          operands = {{d, {3}}};
          break;
        default:
          if (kind == OpKind::Clamp)
            operands = {{d, {3}}, {d, {3}}, {d, {3}}};
          else if (tg::graph::isBinaryElementwise(kind) || kind == OpKind::Compare)
            operands = {{d, {3}}, {d, {3}}};
          else
            operands = {{d, {3}}};
          break;
      }
      TensorType result;
      const bool accepted = tg::graph::inferResultType(kind, attrs, operands, result).empty();
      EXPECT_EQ(accepted, covered.count({name, d}) > 0)
          << name << " with " << tg::dtype_name(d) << (accepted ? " is accepted but has no case"
                                                              : " is rejected but has a case");
    }
  }
  EXPECT_EQ(casts.size(), all.size() * all.size()) << "a cast between every pair of dtypes";
}

//===----------------------------------------------------------------------===//
// Kernel counts
//===----------------------------------------------------------------------===//

/// The kernels a program launches (launches of one kernel counted each).
size_t kernelsOf(const std::string& ir, bool fuse = true) {
  return compileIr(ir, fuse).plan.launches.size();
}

/// The elementwise ops left after the pipeline's first two stages (canonicalize, decompose).
int elementwiseOpsAfterCanonicalize(const std::string& ir) {
  std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
  mlir::MLIRContext& context = tg::compiler::sharedContext();
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(ir, &context);
  for (const tg::compiler::PipelineStage& stage : tg::compiler::pipelineStages({})) {
    if (stage.name == "fuse") break;
    mlir::PassManager pm(&context);
    stage.addPasses(pm);
    if (mlir::failed(pm.run(*module))) return -1;
  }
  int n = 0;
  module->walk([&](mlir::Operation* op) {
    std::optional<tg::ir::OpDescription> d = tg::ir::describeOp(op);
    if (d && tg::graph::isElementwise(d->kind)) ++n;
  });
  return n;
}

Tensor readmeChain(const Tensor& x, const Tensor& y) {
  auto t = tg::tanh(x * 1.5f + y) * tg::sigmoid(y);
  return tg::exp(-(t * t)) * y + 1.0f;
}

const tg::TensorSpec kVec{{1 << 20}, DType::F32};

TEST(KernelCount, ReadmeChainIsOneKernel) {
  auto f = tg::jit([](const Tensor& x, const Tensor& y) { return readmeChain(x, y); });
  const std::string ir = f.trace_ir(kVec, kVec);
  Compiled c = compileIr(ir);
  EXPECT_EQ(c.plan.kernels.size(), 1u) << c.plan.str();
  EXPECT_EQ(c.plan.launches.size(), 1u);
  EXPECT_EQ(c.plan.arenaBytes, 0u) << "a fused chain needs no temporaries";
}

// Kernels whose sources differ only in their names are one kernel of the plan, launched once
// per use on each use's own buffers (a model's layers: each compiled and loaded once); kernels
// that differ in anything else (an op, a constant, a shape) stay apart.
TEST(KernelCount, KernelsThatDifferOnlyInTheirNamesAreOneKernel) {
  const std::string ir = R"(
func.func @f(%x: tensor<1024xf32>, %y: tensor<1024xf32>, %z: tensor<512xf32>) -> (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<512xf32>) {
  %c2 = tg.constant dense<2.0> : tensor<1024xf32>
  %c3 = tg.constant dense<3.0> : tensor<1024xf32>
  %d2 = tg.constant dense<2.0> : tensor<512xf32>
  %a = tg.mul %x, %c2 : tensor<1024xf32>
  %b = tg.mul %y, %c2 : tensor<1024xf32>
  %c = tg.mul %y, %c3 : tensor<1024xf32>
  %e = tg.exp %x : tensor<1024xf32>
  %f = tg.mul %z, %d2 : tensor<512xf32>
  return %a, %b, %c, %e, %f : tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<512xf32>
})";
  Compiled c = compileIr(ir, /*fuse=*/false);
  const tg::rt::Plan& plan = c.plan;
  ASSERT_EQ(plan.launches.size(), 5u) << plan.str();
  EXPECT_EQ(plan.kernels.size(), 4u) << "x * 2 and y * 2 share a kernel; y * 3, exp(x) and z * 2 "
                                        "(another size) do not\n" << plan.str();
  EXPECT_EQ(plan.launches[0].kernel, plan.launches[1].kernel) << plan.str();
  EXPECT_NE(plan.launches[0].fusion, plan.launches[1].fusion) << "each launch names its own fusion";
  EXPECT_NE(plan.str().find("(for " + plan.launches[1].fusion + ")"), std::string::npos) << plan.str();
  EXPECT_NE(plan.launches[0].buffers, plan.launches[1].buffers) << "each launch keeps its own buffers";
  std::set<int> kernels;
  for (const tg::rt::PlanLaunch& l : plan.launches) kernels.insert(l.kernel);
  EXPECT_EQ(kernels.size(), plan.kernels.size()) << "every kernel is launched";
  for (const tg::rt::KernelSource& k : plan.kernels)
    EXPECT_NE(k.source.find("#define TG_NAME " + k.name + "\n"), std::string::npos) << k.source;
}

TEST(KernelCount, UnfusedChainIsOneKernelPerElementwiseOp) {
  auto f = tg::jit([](const Tensor& x, const Tensor& y) { return readmeChain(x, y); });
  const std::string ir = f.trace_ir(kVec, kVec);
  const int ops = elementwiseOpsAfterCanonicalize(ir);
  // mul, add, tanh, sigmoid, mul, mul (t*t), neg, exp, mul, add.
  EXPECT_EQ(ops, 10);
  EXPECT_EQ(kernelsOf(ir, /*fuse=*/false), static_cast<size_t>(ops));
  EXPECT_EQ(kernelsOf(ir, /*fuse=*/true), 1u);
}

TEST(KernelCount, TwoOutputDiamondIsOneKernel) {
  auto f = tg::jit([](const Tensor& x, const Tensor& y) {
    Tensor a = tg::exp(x);
    return std::make_tuple(a * 2.0f, a + y);
  });
  tg::TensorSpec s{{1000, 37}, DType::F32};
  Compiled c = compileIr(f.trace_ir(s, s));
  EXPECT_EQ(c.numResults, 2u);
  EXPECT_EQ(c.plan.kernels.size(), 1u) << c.plan.str();
  EXPECT_EQ(c.plan.outputs.size(), 2u);
  EXPECT_EQ(kernelsOf(f.trace_ir(s, s), /*fuse=*/false), 3u);  // exp, mul, add
}

TEST(KernelCount, BiasAddGeluIsOneKernel) {
  for (DType d : {DType::F32, DType::BF16}) {
    auto f = tg::jit([](const Tensor& x, const Tensor& bias) { return tg::gelu(x + bias); });
    Compiled c = compileIr(f.trace_ir(tg::TensorSpec{{256, 768}, d}, tg::TensorSpec{{768}, d}));
    EXPECT_EQ(c.plan.kernels.size(), 1u) << tg::dtype_name(d) << "\n" << c.plan.str();
    // The bias is read through the broadcast's index map, not materialized.
    EXPECT_EQ(c.plan.arenaBytes, 0u);
  }
}

TEST(KernelCount, MatmulEpilogueReadsByRowAndColumn) {
  // x[2, 128, 64] @ w[64, 96] + bias[96] + residual[2, 128, 96]: one wgmma kernel whose
  // epilogue reads the bias at the column alone (the same expression for every row a thread
  // holds, so it is loaded once per column) and the residual at the linear index.
  auto f = tg::jit([](const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& r) {
    return tg::gelu(tg::matmul(x, w) + bias) + r;
  });
  const DType d = DType::BF16;
  Compiled c = compileIr(f.trace_ir(tg::TensorSpec{{2, 128, 64}, d}, tg::TensorSpec{{64, 96}, d},
                                    tg::TensorSpec{{96}, d}, tg::TensorSpec{{2, 128, 96}, d}));
  ASSERT_EQ(c.plan.kernels.size(), 1u) << c.plan.str();
  const std::string& source = c.plan.kernels[0].source;
  ASSERT_NE(source.find("wgmma"), std::string::npos) << source;
  EXPECT_NE(source.find("in2[n]"), std::string::npos) << "the bias, by column\n" << source;
  EXPECT_NE(source.find("in3[i]"), std::string::npos) << "the residual, by linear index\n" << source;
  if (requireNvrtc()) {
    EXPECT_EQ(nvrtcAll(c.plan), 1) << "compiled for sm_90a";
  }
}

// A rotary embedding in rotate-half form, x * cos + concat(-x2, x1) * sin over the halves of
// cast(x) (cos and sin [T, hd] broadcast over the heads), with a norm weight's cast read
// through a broadcast: one kernel (the concat's
// operands recomputed at its index, the cast of the weight recomputed per element), that
// compiles.
TEST(KernelCount, RotaryEmbeddingIsOneKernelThatCompiles) {
  auto rope = tg::jit([](const Tensor& x, const Tensor& cos, const Tensor& sin, const Tensor& w) {
    Tensor xf = tg::cast(x, DType::F32);
    const int64_t half = x.shape().back() / 2;
    Tensor x1 = tg::slice(xf, -1, 0, half), x2 = tg::slice(xf, -1, half);
    Tensor rot = xf * cos + tg::concat({-x2, x1}, -1) * sin;
    return tg::cast(rot * tg::cast(w, DType::F32), DType::BF16);
  });
  const DType bf = DType::BF16, f = DType::F32;
  Compiled k = compileIr(rope.trace_ir(tg::TensorSpec{{16, 4, 128}, bf}, tg::TensorSpec{{4, 128}, f},
                                       tg::TensorSpec{{4, 128}, f}, tg::TensorSpec{{128}, bf}));
  ASSERT_EQ(k.plan.kernels.size(), 1u) << k.plan.str();
  if (requireNvrtc()) nvrtcAll(k.plan);
}

// Matmuls bound by one operand's bytes take a gemv path (tg/Dialect/Gemv.h) in each of its
// forms: the CUDA-core kernel for f32, for 1-2 two-byte vectors or K not in 16-byte chunks
// (16-byte loads exactly where the shapes allow them), the tensor-core kernel for 3 to 16
// two-byte vectors; they fuse their epilogue and compile. The other forms keep the gemm paths.
TEST(KernelCount, SkinnyMatmulsAreGemvKernelsThatCompile) {
  struct Case {
    const char* name;
    tg::TensorSpec a, b;
    bool transA, transB;
    const char* want;  ///< in the kernel summary: the path, and "16-byte" / "element" loads
  };
  const DType bf = DType::BF16, f = DType::F32, h = DType::F16;
  const Case cases[] = {
      {"decode x @ w^T + silu", {{1, 2048}, bf}, {{5632, 2048}, bf}, false, true, "gemv (1 row(s) x 128 threads, 128 a block, 16-byte loads)"},
      {"A @ x[K, 4]", {{2048, 2048}, f}, {{2048, 4}, f}, false, false, "gemv (2 row(s) x 256 threads, 256 a block, 16-byte loads)"},
      {"A @ x[K, 2]", {{2048, 2048}, f}, {{2048, 2}, f}, false, false, "gemv (1 row(s) x 256 threads, 256 a block, 16-byte loads)"},
      {"x^T stored [K, M]", {{512, 8}, f}, {{700, 512}, f}, true, true, "gemv (1 row(s) x 64 threads, 128 a block, 16-byte loads)"},
      {"A @ x stored [N, K]", {{512, 256}, h}, {{2, 256}, h}, false, true, "16-byte loads"},
      {"K = 33", {{3, 33}, bf}, {{65, 33}, bf}, false, true, "element loads"},
      {"x [K, 3]", {{100, 64}, bf}, {{64, 3}, bf}, false, false, "gemv (tensor cores, 16 rows x 8 vectors, 1 warp(s)"},
      {"A's rows of 60 bf16 are not 16-byte multiples", {{100, 60}, bf}, {{60, 3}, bf}, false, false, "element loads"},
      {"batched scores", {{4, 4, 128}, bf}, {{4, 640, 128}, bf}, false, true, "gemv (tensor cores, 16 rows x 8 vectors, 1 warp(s)"},
      {"16 f32 vectors", {{16, 4096}, f}, {{4096, 4096}, f}, false, true, "gemv (4 row(s) x 256 threads"},
      {"16 bf16 vectors", {{16, 4096}, bf}, {{4096, 4096}, bf}, false, true, "gemv (tensor cores, 16 rows x 16 vectors"},
      {"17 vectors: a gemm", {{17, 4096}, bf}, {{4096, 4096}, bf}, false, true, "wgmma"},
      {"x @ w with w [K, N]: not K-contiguous", {{1, 2048}, bf}, {{2048, 4096}, bf}, false, false, "wgmma"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const bool ta = c.transA, tb = c.transB, silu = std::string(c.name).find("silu") != std::string::npos;
    auto fn = tg::jit([=](const Tensor& x, const Tensor& y) {
      Tensor r = tg::matmul(ta ? tg::transpose(x, -2, -1) : x, tb ? tg::transpose(y, -2, -1) : y);
      return silu ? tg::silu(r) : r;
    });
    Compiled k = compileIr(fn.trace_ir(c.a, c.b));
    ASSERT_EQ(k.plan.kernels.size(), 1u) << k.plan.str();
    const std::string& summary = k.plan.kernels[0].summary;
    EXPECT_NE(summary.find(c.want), std::string::npos) << summary;
    if (silu) {
      EXPECT_NE(summary.find("+ 1 epilogue op(s)"), std::string::npos) << summary;
    }
    if (requireNvrtc()) nvrtcAll(k.plan);
  }
}

//===----------------------------------------------------------------------===//
// Tuning knobs (Tuning.h): options all the way down, the environment read in one place
//===----------------------------------------------------------------------===//

TEST(Tuning, ElementwiseKnobsReachTheKernel) {
  auto f = tg::jit([](const Tensor& x, const Tensor& y) { return readmeChain(x, y); });
  const std::string ir = f.trace_ir(kVec, kVec);
  tg::codegen::Tuning t;
  t.elementwiseBlock = 128;
  t.elementwiseUnroll = 4;
  t.cacheHint = 1;
  t.blocksPerSm = 2;
  Compiled tuned = compileIr(ir, true, "sm_90a", t), plain = compileIr(ir);
  ASSERT_EQ(tuned.plan.launches.size(), 1u);
  EXPECT_EQ(tuned.plan.launches[0].dims.block[0], 128u);
  EXPECT_EQ(tuned.plan.launches[0].dims.grid[0], 2u * 132u) << "capped at 2 blocks per SM";
  const std::string& source = tuned.plan.kernels[0].source;
  EXPECT_NE(source.find("#define TG_UNROLL 4"), std::string::npos) << source;
  EXPECT_NE(source.find("#define TG_CACHE_HINT 1"), std::string::npos) << source;
  EXPECT_EQ(plain.plan.launches[0].dims.block[0], 256u) << "the default";
  EXPECT_NE(plain.plan.kernels[0].source, source) << "variants are different sources (cache keys)";
}

// TG_PDL=1 on sm_90a: every kernel of the plan waits for its predecessor itself (the prelude's
// TG_GRID_PROLOGUE compiled to griddepcontrol), which is what lets the runtime launch it
// programmatically; the plan says so. Not on sm_80 (no griddepcontrol), and not by default.
TEST(Tuning, ProgrammaticLaunchesPutAGridDependencyWaitInEveryKernel) {
  auto f = tg::jit([](const Tensor& x, const Tensor& w) {
    Tensor h = tg::matmul(x, w);                     // a gemm
    Tensor s = tg::softmax(h);                        // a row kernel
    Tensor t = tg::sum(tg::transpose(s, 0, 1), {1});  // a transpose and a reduction
    return std::tuple{tg::exp(t) + 1.0f, tg::matmul(tg::slice(x, 0, 0, 1), w)};  // elementwise, gemv
  });
  const std::string ir = f.trace_ir(tg::TensorSpec{{256, 128}, DType::BF16}, tg::TensorSpec{{128, 256}, DType::BF16});
  tg::codegen::Tuning t;
  t.pdl = 1;
  Compiled pdl = compileIr(ir, true, "sm_90a", t), plain = compileIr(ir), sm80 = compileIr(ir, true, "sm_80", t);
  EXPECT_TRUE(pdl.plan.programmaticLaunches);
  EXPECT_NE(pdl.plan.str().find("programmatic launches"), std::string::npos) << pdl.plan.str();
  EXPECT_FALSE(plain.plan.programmaticLaunches);
  EXPECT_FALSE(sm80.plan.programmaticLaunches);
  ASSERT_GE(pdl.plan.kernels.size(), 4u) << pdl.plan.str();
  std::string why;
  const bool nvrtc = tg::rt::nvrtcAvailable(&why);
  for (const tg::rt::KernelSource& k : pdl.plan.kernels) {
    SCOPED_TRACE(k.name);
    EXPECT_EQ(k.source.rfind("#define TG_PDL 1\n", 0), 0u) << k.source.substr(0, 200);
    EXPECT_NE(k.source.find("TG_GRID_PROLOGUE();"), std::string::npos);
    if (!nvrtc) continue;
    tg::rt::NvrtcResult r = tg::rt::compileCuda(k.source, k.name + ".cu", "sm_90a", tg::rt::defaultNvrtcOptions());
    EXPECT_NE(r.ptx.find("griddepcontrol.wait"), std::string::npos) << "the wait is in the code";
  }
  for (const tg::rt::KernelSource& k : plain.plan.kernels) {
    SCOPED_TRACE(k.name);
    EXPECT_EQ(k.source.find("#define TG_PDL 1"), std::string::npos);
    if (!nvrtc) continue;
    tg::rt::NvrtcResult r = tg::rt::compileCuda(k.source, k.name + ".cu", "sm_90a", tg::rt::defaultNvrtcOptions());
    EXPECT_EQ(r.ptx.find("griddepcontrol"), std::string::npos) << "the default launches as before";
  }
}

TEST(Tuning, MatmulKnobsReachTheKernelAndBadValuesAreErrors) {
  auto f = tg::jit([](const Tensor& x, const Tensor& w) { return tg::matmul(x, w); });
  const std::string ir = f.trace_ir(tg::TensorSpec{{512, 256}, DType::BF16},
                                    tg::TensorSpec{{256, 512}, DType::BF16});
  tg::codegen::Tuning t;
  t.gemmSchedule = "pingpong";
  t.gemmCtas = 7;
  t.gemmGroupM = 4;
  Compiled c = compileIr(ir, true, "sm_90a", t);
  ASSERT_EQ(c.plan.kernels.size(), 1u);
  EXPECT_NE(c.plan.kernels[0].source.find("#define TG_PINGPONG 1"), std::string::npos);
  EXPECT_NE(c.plan.kernels[0].source.find("#define TG_GROUP_M 4"), std::string::npos);
  EXPECT_EQ(c.plan.launches[0].dims.grid[0], 7u);

  EXPECT_NE(c.plan.kernels[0].source.find("#define TG_TMA_STORE 1"), std::string::npos);
  EXPECT_NE(c.plan.kernels[0].summary.find("TMA-store epilogue"), std::string::npos);

  t = {};
  t.gemmDirectStore = 1;
  c = compileIr(ir, true, "sm_90a", t);
  EXPECT_NE(c.plan.kernels[0].source.find("#define TG_TMA_STORE 0"), std::string::npos);
  EXPECT_NE(c.plan.kernels[0].summary.find("direct-store epilogue"), std::string::npos);

  t = {};
  t.matmulPath = "mma_sync";
  c = compileIr(ir, true, "sm_90a", t);
  EXPECT_EQ(c.plan.kernels[0].source.find("wgmma.mma_async"), std::string::npos);
  EXPECT_NE(c.plan.kernels[0].source.find("mma.sync"), std::string::npos);

  for (auto [path, schedule] : {std::pair{"fast", ""}, std::pair{"", "zigzag"}}) {
    t = {};
    t.matmulPath = path;
    t.gemmSchedule = schedule;
    try {
      (void)compileIr(ir, true, "sm_90a", t);
      ADD_FAILURE() << "path '" << path << "', schedule '" << schedule << "' compiled";
    } catch (const tg::Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(*path ? "path 'fast'" : "schedule 'zigzag'"), std::string::npos) << what;
    }
  }
}

TEST(Tuning, TheEnvironmentIsReadByOneFunction) {
  const char* names[] = {"TG_MATMUL_PATH", "TG_GEMM_SCHEDULE", "TG_GEMM_GROUP", "TG_GEMM_CTAS",
                         "TG_BLOCK", "TG_UNROLL", "TG_CACHE_HINT", "TG_BLOCKS_PER_SM",
                         "TG_GEMM_DIRECT_STORE", "TG_ROW_REGISTERS", "TG_ROW_MAX_GROUP", "TG_ROW_CLUSTER_GROUP"};
  for (const char* n : names) unsetenv(n);
  const tg::codegen::Tuning none = tg::codegen::tuningFromEnvironment();
  EXPECT_TRUE(none.matmulPath.empty() && none.gemmSchedule.empty());
  EXPECT_EQ(none.elementwiseBlock + none.elementwiseUnroll + none.cacheHint + none.blocksPerSm +
                none.gemmCtas + none.gemmGroupM + none.gemmDirectStore + none.rowRegisters +
                none.rowMaxGroup + none.rowClusterGroup,
            0);
  const char* values[] = {"simt", "pingpong", "4", "100", "128", "3", "2", "8", "1", "16", "256", "512"};
  for (size_t i = 0; i < std::size(names); ++i) setenv(names[i], values[i], 1);
  const tg::codegen::Tuning t = tg::codegen::tuningFromEnvironment();
  for (const char* n : names) unsetenv(n);
  EXPECT_EQ(t.matmulPath, "simt");
  EXPECT_EQ(t.gemmSchedule, "pingpong");
  EXPECT_EQ(t.gemmGroupM, 4);
  EXPECT_EQ(t.gemmCtas, 100);
  EXPECT_EQ(t.elementwiseBlock, 128);
  EXPECT_EQ(t.elementwiseUnroll, 3);
  EXPECT_EQ(t.cacheHint, 2);
  EXPECT_EQ(t.blocksPerSm, 8);
  EXPECT_EQ(t.gemmDirectStore, 1);
  EXPECT_EQ(t.rowRegisters, 16);
  EXPECT_EQ(t.rowMaxGroup, 256);
  EXPECT_EQ(t.rowClusterGroup, 512);
}

// Column reductions (templates/columns.cuh) compile with NVRTC: f32, bf16 and i32; sum, max
// and mean; the rows in slices and not; kept dims on both sides of the reduced ones.
TEST(KernelCount, ColumnReductionsAreColumnKernelsThatCompile) {
  std::string why;
  if (!tg::rt::nvrtcAvailable(&why)) GTEST_SKIP() << "NVRTC is not available: " << why;
  struct Shape3 {
    tg::Shape shape;
    std::vector<int64_t> axes;
  };
  for (const Shape3& c : {Shape3{{8192, 4096}, {0}}, Shape3{{40, 33}, {0}}, Shape3{{7, 300, 64}, {1}}})
    for (DType dt : {DType::F32, DType::BF16, DType::I32}) {
      SCOPED_TRACE(tg::dtype_name(dt) + tg::format_shape(c.shape));
      auto f = tg::jit([&](const Tensor& x) {
        return std::make_tuple(tg::sum(x, c.axes), tg::max(x, c.axes), tg::mean(tg::cast(x, DType::F32), c.axes));
      });
      Compiled k = compileIr(f.trace_ir(tg::TensorSpec{c.shape, dt}));
      int columnKernels = 0;
      for (const tg::rt::KernelSource& kernel : k.plan.kernels) {
        if (kernel.summary.find("of columns of") == std::string::npos) continue;
        ++columnKernels;
        tg::rt::NvrtcResult r = tg::rt::compileCuda(kernel.source, kernel.name + ".cu", "sm_90a",
                                                    tg::rt::defaultNvrtcOptions());
        EXPECT_FALSE(r.cubin.empty());
      }
      EXPECT_EQ(columnKernels, 3) << k.plan.str();
    }
}

// A sum over one row of 4096 is one row kernel with its producer; few long rows (here 2 of
// 65536) stay a reduction kernel that splits them over blocks, after an elementwise kernel.
TEST(KernelCount, SumOfExpIsOneRowKernelUnlessTheRowsAreFewAndLong) {
  auto f = tg::jit([](const Tensor& x) { return tg::sum(tg::exp(x), {-1}); });
  Compiled c = compileIr(f.trace_ir(tg::TensorSpec{{4096}, DType::F32}));
  ASSERT_EQ(c.plan.kernels.size(), 1u) << c.plan.str();
  EXPECT_NE(c.plan.kernels[0].summary.find("row:"), std::string::npos) << c.plan.str();
  EXPECT_EQ(c.plan.launches.size(), 1u);
  EXPECT_EQ(c.plan.outputShapes.at(0), tg::Shape{});
  Compiled few = compileIr(f.trace_ir(tg::TensorSpec{{2, 65536}, DType::F32}));
  EXPECT_EQ(few.plan.kernels.size(), 2u) << few.plan.str();
  EXPECT_EQ(few.plan.launches.size(), 2u);
}

}  // namespace
