//===- GpuTest.cpp - tg on the GPU against the CPU reference --------------===//
//
// Every test starts with `if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";`: on a machine
// without a GPU the whole binary passes, skipping.
//
//  (a) GpuEager.*       every op and dtype of tests/common/OpCases.h, eagerly on CUDA tensors,
//                       against the same op on the CPU (the reference) on fresh seeded inputs
//                       (never zeros), with the tolerance of each case stated in
//                       toleranceFor() below; plus i32 division corner cases.
//  (b) GpuRandom.*      100 random elementwise programs (tests/common/RandomGraph.h): jit
//                       fused and jit unfused (JitOptions{.fuse = false}) on the GPU must be
//                       bit-identical when every value is f32 (16-bit intermediates stay in
//                       f32 inside a fused kernel); both within tolerance of the CPU, the
//                       tolerance of each element derived from the program's own sensitivity
//                       to the documented per-op GPU errors (RandomProgram::sensitivity).
//  (c) GpuOddSizes.*    1, 3 and 1000003 elements: the README chain and bias + gelu.
//  (d) GpuMisaligned.*  input pointers offset by 4 (2) bytes, through rt::Executor directly
//                       (tg has no views): the scalar fallback must give the vector path's bits.
//
// Devices, replay, graph breaks and checks are in GpuRuntimeTest.cpp; long reductions in
// GpuReductionTest.cpp; matmuls and their fused epilogues in GpuMatmulTest.cpp; the comparison
// helpers in GpuCompare.h.
//
// Comparisons report ||got - ref|| / ||ref|| and the largest error against the per-element
// bound, and fail on any NaN.
//
//===----------------------------------------------------------------------===//
#include "GpuCompare.h"
#include "GpuPlan.h"
#include "OpCases.h"
#include "RandomGraph.h"

#include "tg/Compiler/Context.h"
#include "tg/Compiler/Driver.h"
#include "tg/Runtime/Executor.h"
#include "tg/Reference/Interpreter.h"
#include "tg/Runtime/Gpu.h"
#include "tg/Support/Half.h"
#include "tg/Transforms/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <stdexcept>
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <new>
#include <sstream>
#include <string>
#include <vector>

namespace {

using tg::Device;
using tg::DType;
using tg::Tensor;
using namespace tggpu;

//===----------------------------------------------------------------------===//
// (a) Every op and dtype, eagerly
//===----------------------------------------------------------------------===//

/// The tolerance of one case (numerics: compiler/lib/CodeGen/ScalarMath.cpp and
/// tg/Support/Precision.h; Precision::Auto).
Tolerance toleranceFor(const tgtest::OpCase& c, const std::vector<Tensor>& cpuInputs) {
  Tolerance t;
  const DType d = c.dtype;
  const bool bf16 = d == DType::BF16, f16 = d == DType::F16;
  const double oneUlpRel = d == DType::F32 ? 0 : std::ldexp(1.0, -(mantissaBits(d) - 1));
  switch (c.accuracy) {
    case tgtest::Accuracy::Exact:
      t.rule = "exact: layout, casts, neg/abs/relu/max/min, compare, select, f32 + - * /, "
               "reduce_max, i32 arithmetic";
      return t;
    case tgtest::Accuracy::Elementwise: {
      const std::string& op = c.op;
      if (op == "sqrt" || (!bf16 && op == "rsqrt")) {
        t.rule = "exact: IEEE sqrt (and 1 / sqrt) in f32 on both sides, then the same rounding";
        return t;
      }
      // Precision::Auto: exp and sigmoid through ex2.approx/rcp.approx, division through
      // div.full, for every dtype (tg/Support/Precision.h).
      if (op == "exp" || op == "sigmoid" || op == "silu" || op == "div") {
        t.dtypeUlps = d == DType::F32 ? 0 : 1;
        t.norm = std::max(oneUlpRel, std::ldexp(1.0, -20));
        if (op == "div") {
          t.f32Ulps = 3;
          t.rule = std::string(tg::dtype_name(d)) + " div: div.full (2 ulp of f32)";
        } else {
          t.rel = std::ldexp(1.0, -20);
          t.rule = std::string(tg::dtype_name(d)) + " " + op +
                   ": ex2.approx/rcp.approx (2^-20 relative)";
        }
        if (t.dtypeUlps) t.rule += " + 1 ulp";
        return t;
      }
      if (d == DType::F32) {
        t.f32Ulps = 4;
        t.abs = 1e-6;
        t.norm = 1e-6;
        t.rule = "f32 " + op + ": CUDA's accurate function vs the C library: 4 ulp or 1e-6 absolute";
        return t;
      }
      t.dtypeUlps = 1;  // the f32 values may round to neighbouring 16-bit values
      t.norm = oneUlpRel;
      if (f16) {
        t.f32Ulps = 4;
        t.abs = 1e-6;
        t.rule = "f16 " + op + ": 1 ulp of f16 + accurate f32 function (4 ulp or 1e-6)";
        return t;
      }
      // bf16 under Precision::Auto: hardware approximations, each with its documented error.
      if (op == "log" || op == "log2") {
        t.f32Ulps = 4;
        t.abs = std::ldexp(1.0, -21);  // __logf: 2^-21.41 absolute on [0.5, 2], else 3 ulp; __log2f: 2^-22.6, 2 ulp
        t.rule = "bf16 " + op + ": 1 ulp + __logf/__log2f (2^-21 absolute or 4 ulp of f32)";
      } else if (op == "tanh") {
        t.rel = std::exp2(-10.9);  // tanh.approx: 2^-10.987 relative
        t.rule = "bf16 tanh: 1 ulp + tanh.approx (2^-10.9 relative)";
      } else if (op == "gelu_tanh") {
        // x * sigmoid(2u) with ex2/rcp approximations: relative error; plus the reference's own
        // cancellation in 0.5 x (1 + tanhf(u)) for negative x.
        double x = 0;
        for (const Tensor& in : cpuInputs) x = std::max(x, maxAbs(in));
        t.rel = std::ldexp(1.0, -19);
        t.abs = x * std::ldexp(1.0, -22);
        t.rule = "bf16 gelu(tanh): 1 ulp + 2^-19 relative + max|x| 2^-22 absolute";
      } else if (op == "gelu_erf") {
        t.f32Ulps = 4;
        t.abs = 1e-6;
        t.rule = "bf16 gelu(erf): 1 ulp + accurate erff (4 ulp or 1e-6)";
      } else if (op == "rsqrt") {
        t.rel = std::ldexp(1.0, -22);  // rsqrt.approx: 2^-22.9 relative
        t.rule = "bf16 rsqrt: 1 ulp + rsqrt.approx (2^-22 relative)";
      } else if (op == "pow") {
        t.rel = std::ldexp(1.0, -16);  // __powf = exp2(y log2 x), approximate
        t.rule = "bf16 pow: 1 ulp + __powf (2^-16 relative)";
      } else {
        t.rule = "bf16 " + op + ": 1 ulp";
      }
      return t;
    }
    case tgtest::Accuracy::Reduction: {
      t.scaled = accumulationRel(c.reduced);
      t.dtypeUlps = d == DType::F32 ? 0 : 1;
      t.rule = std::string(tg::dtype_name(d)) + " " + c.op + " of " + std::to_string(c.reduced) +
               " elements: f32 accumulation, " + std::to_string(t.scaled) +
               " x sum|x| (1e-5 sqrt(count / 64))" + (t.dtypeUlps ? " + 1 ulp" : "");
      return t;
    }
    case tgtest::Accuracy::Composite: {
      const double r = accumulationRel(c.reduced);
      t.rel = r;
      t.scaled = r;  // x max|ref|: layer_norm's centred values cancel
      t.dtypeUlps = d == DType::F32 ? 0 : 1;
      t.norm = d == DType::F32 ? r : bf16 ? 1e-2 : 2e-3;
      t.rule = std::string(tg::dtype_name(d)) + " " + c.op + ": decomposed in f32 (accurate); " +
               std::to_string(r) + " relative + same x max|ref|" +
               (t.dtypeUlps ? " + 1 ulp (one rounding at the end)" : "") + ", norm " +
               std::to_string(t.norm);
      return t;
    }
    case tgtest::Accuracy::Matmul: {
      // 16-bit operands: exact products, f32 accumulation of K <= 64 of them: K 2^-24
      // (|A| |B|)_ij. f32 operands multiply as TF32 by default (Precision::Auto): inputs
      // rounded to 10 mantissa bits, products within 2^-10 relative; 2^-9 leaves room for
      // tensor cores that truncate (as GpuMatmulTest.cpp).
      const bool tf32 = d == DType::F32;
      t.scaled = tf32 ? std::ldexp(1.0, -9) + c.reduced * std::ldexp(1.0, -23) : 1e-5;
      t.dtypeUlps = d == DType::F32 ? 0 : 1;
      t.norm = d == DType::F32 ? 2e-3 : bf16 ? 1e-2 : 2e-3;
      t.rule = std::string(tg::dtype_name(d)) + " matmul (f32 accumulate" +
               (tf32 ? ", TF32 products" : "") + "), K = " + std::to_string(c.reduced) + ": " +
               std::to_string(t.scaled) + " x (|A| |B|)_ij" + (t.dtypeUlps ? " + 1 ulp" : "") +
               ", norm " + std::to_string(t.norm);
      return t;
    }
  }
  return t;
}

/// Per-element magnitudes for the scaled part of the tolerance, on the CPU.
std::vector<double> scaleFor(const tgtest::OpCase& c, const std::vector<Tensor>& cpuInputs,
                             const Tensor& ref) {
  switch (c.accuracy) {
    case tgtest::Accuracy::Reduction:  // the same reduction of |x|
      return absValues(c.fn({tg::abs(cpuInputs[0])}));
    case tgtest::Accuracy::Matmul: {  // (|A| |B|)_ij
      std::vector<Tensor> absIn;
      for (const Tensor& t : cpuInputs) absIn.push_back(tg::abs(t));
      return absValues(c.fn(absIn));
    }
    case tgtest::Accuracy::Composite:
      return std::vector<double>(static_cast<size_t>(ref.numel()), maxAbs(ref));
    default:
      return {};
  }
}

uint64_t seedOf(const std::string& name) {  // FNV-1a: the same seed on every machine
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : name) h = (h ^ ch) * 0x100000001b3ull;
  return h % 1000000007ull;
}

/// `c.fn` under tg::jit (cases take 1 to 3 inputs), run on `in`.
Tensor jitted(const tgtest::OpCase& c, const std::vector<Tensor>& in) {
  const auto& fn = c.fn;
  switch (in.size()) {
    case 1: return tg::jit([&fn](const Tensor& a) { return fn({a}); })(in[0]);
    case 2: return tg::jit([&fn](const Tensor& a, const Tensor& b) { return fn({a, b}); })(in[0], in[1]);
    case 3:
      return tg::jit([&fn](const Tensor& a, const Tensor& b, const Tensor& d) { return fn({a, b, d}); })(in[0], in[1],
                                                                                                     in[2]);
    default: throw std::runtime_error("a case with " + std::to_string(in.size()) + " inputs");
  }
}

/// Runs every case whose `op` passes `select`, on the GPU (eagerly, or fused under tg::jit)
/// and on the CPU, and compares.
void runCases(const std::function<bool(const tgtest::OpCase&)>& select, bool jit = false) {
  int ran = 0;
  for (const tgtest::OpCase& c : tgtest::opCases()) {
    if (!select(c)) continue;
    ++ran;
    SCOPED_TRACE("case " + c.name);
    const uint64_t seed = seedOf(c.name);
    std::vector<Tensor> cpu = tgtest::caseInputs(c, seed, Device::CPU);
    std::vector<Tensor> gpu = toDevice(cpu, Device::CUDA);
    Tensor want = c.fn(cpu);
    Tensor got;
    try {
      got = jit ? jitted(c, gpu) : c.fn(gpu);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "the GPU op threw: " << e.what();
      continue;
    }
    EXPECT_EQ(got.device(), Device::CUDA);
    compare(got, want, toleranceFor(c, cpu), scaleFor(c, cpu, want));
  }
  EXPECT_GT(ran, 0) << "no case selected";
}

bool isOp(const tgtest::OpCase& c, std::initializer_list<const char*> ops) {
  for (const char* op : ops)
    if (c.op == op) return true;
  return false;
}

TEST(GpuEager, UnaryAndBinaryElementwise) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  runCases([](const tgtest::OpCase& c) {
    return isOp(c, {"neg", "abs", "relu", "exp", "log", "tanh", "sigmoid", "gelu_erf", "gelu_tanh",
                    "sqrt", "rsqrt", "add", "sub", "mul", "div", "maximum", "minimum", "pow", "sin", "cos",
                    "erf", "exp2", "log2", "floor", "ceil", "round", "sign", "silu", "clamp"});
  });
}

TEST(GpuEager, CompareAndSelect) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  runCases([](const tgtest::OpCase& c) { return isOp(c, {"cmp", "select"}); });
}

TEST(GpuEager, CastsBetweenEveryPair) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  runCases([](const tgtest::OpCase& c) { return isOp(c, {"cast"}); });
}

TEST(GpuEager, Layout) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  runCases([](const tgtest::OpCase& c) {
    return isOp(c, {"broadcast", "transpose", "reshape", "slice", "concat", "iota", "gather", "dynamic_slice",
                    "dynamic_update_slice"});
  });
}

// The decoder's ops fused: slices and concats as index maps, iota inside the kernels that
// read it, rotate-half, causal masks, argmax; each case one jit function on the GPU against
// the CPU's eager ops.
TEST(GpuJit, DecoderOpsFusedMatchTheCpu) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  runCases(
      [](const tgtest::OpCase& c) {
        return isOp(c, {"slice", "concat", "iota", "clamp", "sign", "silu", "sin", "cos", "argmax", "argmin",
                        "reduce_min", "reduce_prod", "gather", "dynamic_slice", "dynamic_update_slice"});
      },
      /*jit=*/true);
}

TEST(GpuEager, Reductions) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  runCases([](const tgtest::OpCase& c) {
    return isOp(c, {"reduce_sum", "reduce_max", "reduce_mean", "reduce_min", "reduce_prod", "argmax", "argmin"});
  });
}

TEST(GpuEager, SoftmaxAndLayerNorm) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  runCases([](const tgtest::OpCase& c) { return isOp(c, {"softmax", "layer_norm"}); });
}

TEST(GpuEager, Matmul) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  runCases([](const tgtest::OpCase& c) { return isOp(c, {"matmul"}); });
}

TEST(GpuEager, IntegerDivisionCornerCases) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  // x / 0 = 0 and INT_MIN / -1 = INT_MIN (RefKernels.h), truncation toward zero, wrapping neg.
  const std::vector<int32_t> a = {7, -7, INT_MIN, 5, 0, -9, INT_MAX, INT_MIN, 1};
  const std::vector<int32_t> b = {0, 2, -1, -3, 0, 4, -1, 1, INT_MIN};
  Tensor ca = tg::from_vector(a, {9}, DType::I32, Device::CPU);
  Tensor cb = tg::from_vector(b, {9}, DType::I32, Device::CPU);
  Tensor ga = ca.to(Device::CUDA), gb = cb.to(Device::CUDA);
  compare(tg::div(ga, gb), tg::div(ca, cb), Tolerance{});
  compare(tg::neg(ga), tg::neg(ca), Tolerance{});
  compare(tg::abs(ga), tg::abs(ca), Tolerance{});
  compare(ga * gb, ca * cb, Tolerance{});
  const std::vector<int32_t> want = {0, -3, INT_MIN, -1, 0, -2, -INT_MAX, INT_MIN, 0};
  EXPECT_EQ(tg::div(ga, gb).to_vector<int32_t>(), want);
}

//===----------------------------------------------------------------------===//
// (b) Random programs: fused vs unfused vs the CPU interpreter
//===----------------------------------------------------------------------===//

/// What the fused GPU kernels compute, on the CPU: the program fused as the pipeline fuses it
/// (stages up to "fuse"), interpreted with bf16/f16 values kept in f32 inside each kernel and
/// rounded where they leave it (tg::ref::InterpretOptions::f32InsideFusions).
std::vector<Tensor> interpretFused(const tgtest::RandomProgram& p, const std::vector<Tensor>& cpu) {
  std::string ir = tgtest::traceIr(p);
  std::vector<tg::ref::HostTensor> args;
  for (const Tensor& t : cpu)
    args.push_back(tg::ref::HostTensor::fromFloats(t.dtype(), t.shape(), t.to_vector<float>()));
  std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
  mlir::MLIRContext& context = tg::compiler::sharedContext();
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(ir, &context);
  if (!module) throw std::runtime_error("the traced IR does not parse");
  tg::compiler::compile(*module, {}, tg::compiler::Target::FusedReference);
  tg::ref::InterpretOptions options;
  options.f32InsideFusions = true;
  std::vector<tg::ref::HostTensor> results =
      tg::ref::interpret(*module->getOps<mlir::func::FuncOp>().begin(), args, options);
  std::vector<Tensor> out;
  for (const tg::ref::HostTensor& r : results)
    out.push_back(tg::from_vector(r.toFloats(), r.shape(), r.dtype(), Device::CPU));
  return out;
}

void checkRandomProgram(uint64_t seed) {
  const tgtest::RandomProgram p = tgtest::randomProgram(seed);
  SCOPED_TRACE(p.description);
  std::vector<Tensor> cpu = tgtest::randomInputs(p, seed, Device::CPU);
  std::vector<Tensor> gpu = toDevice(cpu, Device::CUDA);
  std::vector<Tensor> fused, unfused, want, wantFused;
  try {
    tg::JitOptions fuse, noFuse;
    fuse.fuse = true;
    noFuse.fuse = false;  // one kernel per op
    fused = tgtest::runJit(p, fuse, gpu);
    unfused = tgtest::runJit(p, noFuse, gpu);
    want = tgtest::runJit(p, tg::JitOptions{}, cpu);  // CPU tensors: the reference interpreter
    wantFused = interpretFused(p, cpu);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "seed " << seed << ": " << e.what();
    return;
  }
  ASSERT_EQ(fused.size(), p.numOutputs);
  ASSERT_EQ(unfused.size(), p.numOutputs);
  ASSERT_EQ(want.size(), p.numOutputs);
  // Per element: 3x the program's first-order sensitivity to the documented per-op GPU errors,
  // plus one ulp of the result's own rounding; programs with no inexact step must match the
  // reference bit for bit.
  const std::vector<std::vector<double>> sensitivity = p.sensitivity(cpu);
  for (size_t o = 0; o < p.numOutputs; ++o) {
    SCOPED_TRACE("seed " + std::to_string(seed) + ", result " + std::to_string(o));
    EXPECT_EQ(fused[o].device(), Device::CUDA);
    EXPECT_EQ(unfused[o].device(), Device::CUDA);
    // Kernels keep intermediates in f32 and round only what they store: with every value in
    // f32, fusing changes nothing at all.
    std::string why;
    if (p.lowestPrecision == DType::F32) {
      EXPECT_TRUE(sameBits(fused[o], unfused[o], why)) << "fused differs from unfused: " << why;
    }
    const std::vector<double>& s = sensitivity[o];
    const DType d = want[o].dtype();
    auto bound = [&](int64_t i, double r) {
      return 3 * s.at(static_cast<size_t>(i)) + (p.inexact ? ulpOf(d, std::fabs(r)) : 0.0);
    };
    const std::string rule = p.inexact ? "3 x sensitivity + 1 ulp" : "exact (no inexact step)";
    // Fused kernels are compared with the reference of the fused program (f32 inside each
    // kernel), unfused ones with the op-by-op reference.
    compare(fused[o], wantFused[o], bound, 0, "fused: " + rule);
    compare(unfused[o], want[o], bound, 0, "unfused: " + rule);
  }
}

void checkSeeds(uint64_t first, uint64_t last) {
  for (uint64_t seed = first; seed <= last; ++seed) {
    checkRandomProgram(seed);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(GpuRandom, FusedEqualsUnfusedAndMatchesCpuSeeds1To25) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  checkSeeds(1, 25);
}
TEST(GpuRandom, FusedEqualsUnfusedAndMatchesCpuSeeds26To50) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  checkSeeds(26, 50);
}
TEST(GpuRandom, FusedEqualsUnfusedAndMatchesCpuSeeds51To75) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  checkSeeds(51, 75);
}
TEST(GpuRandom, FusedEqualsUnfusedAndMatchesCpuSeeds76To100) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  checkSeeds(76, 100);
}

//===----------------------------------------------------------------------===//
// (c) Odd sizes
//===----------------------------------------------------------------------===//

TEST(GpuOddSizes, ReadmeChain) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  for (DType d : {DType::F32, DType::BF16})
    for (int64_t n : {int64_t{1}, int64_t{3}, int64_t{1000003}}) {
      SCOPED_TRACE(std::string(tg::dtype_name(d)) + " n = " + std::to_string(n));
      auto gpuFn = tg::jit([](const Tensor& x, const Tensor& y) { return readmeChain(x, y); });
      auto cpuFn = tg::jit([](const Tensor& x, const Tensor& y) { return readmeChain(x, y); });
      Tensor x = tg::randn({n}, d, 11 + n, Device::CPU), y = tg::randn({n}, d, 12 + n, Device::CPU);
      Tensor got = gpuFn(x.to(Device::CUDA), y.to(Device::CUDA));
      Tensor want = cpuFn(x, y);
      EXPECT_EQ(got.device(), Device::CUDA);
      const std::vector<float> yv = y.to_vector<float>();
      compare(got, want, [&](int64_t i, double z) { return chainBound(d, yv[i], z); },
              d == DType::F32 ? 1e-5 : 4e-2, "the chain's per-op error bound (chainBound)");
    }
}

TEST(GpuOddSizes, BiasAddGelu) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  for (DType d : {DType::F32, DType::BF16})
    for (int64_t n : {int64_t{1}, int64_t{3}, int64_t{1000003}}) {
      SCOPED_TRACE(std::string(tg::dtype_name(d)) + " n = " + std::to_string(n));
      auto gpuFn = tg::jit([](const Tensor& x, const Tensor& b) { return tg::gelu(x + b); });
      // The fused kernel keeps x + b in f32: so does the reference (cast up, compute, round).
      auto cpuFn = tg::jit([d](const Tensor& x, const Tensor& b) {
        return tg::cast(tg::gelu(tg::cast(x, DType::F32) + tg::cast(b, DType::F32)), d);
      });
      const int64_t rows = n == 1000003 ? 2 : 5;
      Tensor x = tg::randn({rows, n}, d, 21 + n, Device::CPU), b = tg::randn({n}, d, 22 + n, Device::CPU);
      Tensor got = gpuFn(x.to(Device::CUDA), b.to(Device::CUDA));
      Tensor want = cpuFn(x, b);
      // x + b is exact in f32 on both sides; gelu (erf) is CUDA's accurate erff.
      Tolerance t;
      t.dtypeUlps = d == DType::F32 ? 0 : 1;
      t.f32Ulps = 4;
      t.abs = 1e-6;
      t.rule = "add exact in f32; gelu(erf): accurate erff (4 ulp or 1e-6) + 1 ulp of bf16";
      compare(got, want, t);
    }
}

//===----------------------------------------------------------------------===//
// (d) Misaligned inputs through rt::Executor
//===----------------------------------------------------------------------===//

/// A DeviceBuffer that points `offset` bytes into `owner` and frees nothing. DeviceBuffer's
/// destructor frees its pointer and the class has no non-owning mode, so the view object lives
/// in storage owned by a holder that never runs that destructor (the holder keeps `owner`).
std::shared_ptr<tg::rt::DeviceBuffer> viewInto(std::shared_ptr<tg::rt::DeviceBuffer> owner,
                                               size_t offset, size_t bytes) {
  struct Holder {
    std::shared_ptr<tg::rt::DeviceBuffer> owner;
    alignas(tg::rt::DeviceBuffer) unsigned char storage[sizeof(tg::rt::DeviceBuffer)];
  };
  auto holder = std::make_shared<Holder>();
  holder->owner = owner;
  auto* view = new (holder->storage)
      tg::rt::DeviceBuffer(tg::rt::Gpu::get(), owner->ptr() + offset, bytes);
  return std::shared_ptr<tg::rt::DeviceBuffer>(holder, view);  // aliasing: never deletes `view`
}

/// Host bytes of `t` in its dtype (f32 or bf16).
std::vector<unsigned char> bytesOf(const Tensor& t) {
  std::vector<float> v = t.to_vector<float>();
  std::vector<unsigned char> out(v.size() * tg::dtype_size(t.dtype()));
  for (size_t i = 0; i < v.size(); ++i) {
    if (t.dtype() == DType::F32) {
      std::memcpy(&out[4 * i], &v[i], 4);
    } else {
      uint16_t h = tg::float_to_bf16(v[i]);
      std::memcpy(&out[2 * i], &h, 2);
    }
  }
  return out;
}

TEST(GpuMisaligned, ScalarFallbackGivesTheVectorPathsBits) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  tg::rt::Gpu* gpu = tg::rt::Gpu::get();
  ASSERT_NE(gpu, nullptr);
  for (DType d : {DType::F32, DType::BF16}) {
    SCOPED_TRACE(tg::dtype_name(d));
    const int64_t n = 1003;  // not a multiple of the vector width: a scalar tail too
    const size_t es = tg::dtype_size(d), bytes = static_cast<size_t>(n) * es;
    auto chain = [](const Tensor& x, const Tensor& y) { return tg::tanh(x * 1.5f + y) * y - x; };
    const std::string ir = tg::jit(chain).trace_ir(tg::TensorSpec{{n}, d}, tg::TensorSpec{{n}, d});
    tg::rt::Plan plan = planFor(ir, *gpu);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.str();
    ASSERT_NE(plan.kernels[0].source.find("tg_aligned16(in0)"), std::string::npos)
        << "the kernel has no vector path to fall back from:\n" << plan.kernels[0].source;
    tg::rt::Executor executor(plan, *gpu);

    Tensor x = tg::randn({n}, d, 31, Device::CPU), y = tg::randn({n}, d, 32, Device::CPU);
    const std::vector<unsigned char> xb = bytesOf(x), yb = bytesOf(y);
    const Tensor want = tg::jit(chain)(x, y);  // the CPU reference

    // Offsets of x and y in bytes: aligned, x misaligned by one element, both misaligned, and
    // both by an odd number of elements; 16 bytes apart keeps the vector path.
    struct Offsets {
      size_t x, y;
    };
    const std::vector<Offsets> offsets = {{0, 0}, {es, 0}, {es, es}, {3 * es, 5 * es}, {16, 16}};
    std::vector<unsigned char> reference;
    for (const Offsets& off : offsets) {
      SCOPED_TRACE("byte offsets x " + std::to_string(off.x) + ", y " + std::to_string(off.y));
      const size_t total = bytes + 64;
      std::shared_ptr<tg::rt::DeviceBuffer> xbase = gpu->allocate(total), ybase = gpu->allocate(total);
      gpu->fill(xbase->ptr(), 0xA5, 1, total);
      gpu->fill(ybase->ptr(), 0x5A, 1, total);
      gpu->copyToDevice(xbase->ptr() + off.x, xb.data(), bytes);
      gpu->copyToDevice(ybase->ptr() + off.y, yb.data(), bytes);
      std::vector<std::shared_ptr<tg::rt::DeviceBuffer>> results =
          executor.run({viewInto(xbase, off.x, bytes), viewInto(ybase, off.y, bytes)});
      ASSERT_EQ(results.size(), 1u);
      std::vector<unsigned char> out(bytes);
      gpu->copyToHost(out.data(), results[0]->ptr(), bytes);
      gpu->synchronize();
      if (reference.empty()) {
        reference = out;
        // The aligned run against the CPU: tanhf (4 ulp) / tanh.approx (bf16), then exact ops.
        std::vector<float> vals(n);
        for (int64_t i = 0; i < n; ++i)
          vals[i] = d == DType::F32 ? reinterpret_cast<const float*>(out.data())[i]
                                    : tg::bf16_to_float(reinterpret_cast<const uint16_t*>(out.data())[i]);
        Tensor got = tg::from_vector(vals, {n}, d, Device::CPU);
        const std::vector<float> yv = y.to_vector<float>();
        compare(got, want,
                [&](int64_t i, double r) {
                  // |d(tanh * y)| <= |y| * error of tanh (+ the rounding of each op in bf16).
                  return d == DType::F32 ? 8 * std::ldexp(1.0, -24) * std::fabs(yv[i]) + 4 * ulpOf(d, std::fabs(r))
                                         : 0.02 * std::fabs(yv[i]) + 2 * ulpOf(d, std::fabs(r));
                },
                0, "tanh error times |y| + the final roundings");
      } else {
        EXPECT_EQ(out, reference) << "the result depends on the inputs' alignment";
      }
      // The inputs (and the bytes around them) are untouched.
      std::vector<unsigned char> xback(total), yback(total);
      gpu->copyToHost(xback.data(), xbase->ptr(), total);
      gpu->copyToHost(yback.data(), ybase->ptr(), total);
      for (size_t i = 0; i < total; ++i) {
        const bool inX = i >= off.x && i < off.x + bytes, inY = i >= off.y && i < off.y + bytes;
        ASSERT_EQ(xback[i], inX ? xb[i - off.x] : 0xA5) << "x byte " << i;
        ASSERT_EQ(yback[i], inY ? yb[i - off.y] : 0x5A) << "y byte " << i;
      }
    }
  }
}

}  // namespace
