//===- FrontDoorTest.cpp - Sizes, zero-size tensors and splats, end to end (CPU) ===//
//
// Issue 13, item 7: tg's front door. Tensor sizes are checked with overflow-checked
// arithmetic against one limit (tg::kMaxTensorBytes) in the frontend, the dialect and the
// host tensors; zero-size tensors work in eager and jit code, and their kernels are not
// launched; splat constants stay one element all the way to a fill kernel; textual IR goes
// through compiler::parseTgModule, which refuses what crashes MLIR's own parser. The plans
// are compiled with NVRTC (no GPU needed) where NVRTC is found.
//
//===----------------------------------------------------------------------===//
#include <tg/tg.h>

#include "Sanitizers.h"

#include "tg/Compiler/Context.h"
#include "tg/Compiler/Driver.h"
#include "tg/Compiler/ParseModule.h"
#include "tg/Reference/HostTensor.h"
#include "tg/Runtime/KernelCache.h"
#include "tg/Runtime/Nvrtc.h"

#include "mlir/IR/BuiltinOps.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

namespace {

using tg::DType;
using tg::Shape;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

/// Runs `fn`, expecting a tg::Error whose message holds every fragment.
template <typename Fn>
void expectError(Fn fn, std::initializer_list<std::string> fragments) {
  try {
    fn();
    ADD_FAILURE() << "expected a tg::Error";
  } catch (const tg::Error& e) {
    for (const std::string& f : fragments)
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << "'" << f << "' not in: " << e.what();
  }
}

TEST(TensorSizes, CheckedArithmetic) {
  EXPECT_EQ(tg::checked_mul(1 << 20, 1 << 20), int64_t(1) << 40);
  EXPECT_FALSE(tg::checked_mul(int64_t(1) << 32, int64_t(1) << 32));
  EXPECT_FALSE(tg::checked_mul(kMax, 2));
  EXPECT_EQ(tg::checked_numel({}), 1);
  EXPECT_EQ(tg::checked_numel({3, 0, 5}), 0);
  // A zero extent gives 0 before the other extents can overflow the product.
  EXPECT_EQ(tg::checked_numel({int64_t(1) << 40, int64_t(1) << 40, 0}), 0);
  EXPECT_FALSE(tg::checked_numel({int64_t(1) << 32, int64_t(1) << 32}));
  EXPECT_EQ(tg::shape_numel({2, 3, 4}), 24);
  expectError([] { (void)tg::shape_numel({int64_t(1) << 32, int64_t(1) << 32}); },
              {"[4294967296, 4294967296]", "more elements than int64"});
}

TEST(TensorSizes, OneLimitForEveryTensor) {
  EXPECT_EQ(tg::tensor_size_error(DType::F32, {int64_t(1) << 46}), "");  // 2^48 bytes
  EXPECT_EQ(tg::tensor_size_error(DType::Bool, {int64_t(1) << 48}), "");
  EXPECT_NE(tg::tensor_size_error(DType::F32, {(int64_t(1) << 46) + 1}).find("2^48 bytes"),
            std::string::npos);
  EXPECT_NE(tg::tensor_size_error(DType::F32, {int64_t(1) << 32, int64_t(1) << 32}), "");
  // Zero extents count as 1: [2^40, 2^40, 0] has no elements but strides past int64.
  EXPECT_NE(tg::tensor_size_error(DType::Bool, {int64_t(1) << 40, int64_t(1) << 40, 0}), "");
  EXPECT_EQ(tg::tensor_size_error(DType::F32, {3, 0}), "");
  EXPECT_NE(tg::tensor_size_error(DType::F32, {-1}).find("negative"), std::string::npos);
}

TEST(TensorSizes, TheFrontendRefusesShapesPastTheLimit) {
  const int64_t big = int64_t(1) << 32;
  expectError([&] { (void)tg::zeros({big, big}); }, {"zeros", "f32[4294967296, 4294967296]", "2^48 bytes"});
  expectError([&] { (void)tg::randn({big, big}); }, {"2^48 bytes"});
  tg::Tensor one = tg::ones({1});
  expectError([&] { (void)tg::broadcast_to(one, {big, big}); }, {"broadcast", "2^48 bytes"});
  tg::Tensor x = tg::ones({4});
  expectError([&] { (void)tg::reshape(x, {big, big}); }, {"reshape", "more than 2^63"});
  // The same from inside a jit function, at trace time.
  auto f = tg::jit([&](const tg::Tensor& t) { return tg::broadcast_to(t, {big, big}); });
  expectError([&] { (void)f(one); }, {"2^48 bytes"});
}

TEST(TensorSizes, HostTensorsCheckTheLimitAndTheAllocation) {
  expectError([] { tg::ref::HostTensor t(DType::F32, {int64_t(1) << 32, int64_t(1) << 32}); },
              {"2^48 bytes"});
  // 2^46 f32 elements are within the limit but no host holds 256 TiB: a tg::Error, not an
  // uncaught std::bad_alloc. (ASan's operator new reports a failed allocation as a fatal
  // out-of-memory instead of throwing, whatever allocator_may_return_null says.)
#if !TG_UNDER_ASAN
  expectError([] { tg::ref::HostTensor t(DType::F32, {int64_t(1) << 46}); },
              {"out of host memory", "281474976710656 bytes"});
#endif
  // Reshape targets whose known extents overflow int64 (UBSan found the product in
  // tg::reshape), with and without an inferred extent.
  const int64_t big = int64_t(1) << 32;
  tg::Tensor x = tg::ones({4});
  expectError([&] { (void)tg::reshape(x, {big, big, 4}); }, {"reshape", "more than 2^63"});
  expectError([&] { (void)tg::reshape(x, {big, big, -1}); }, {"reshape", "cannot infer the -1 extent"});
}

TEST(ZeroSize, EagerAndJitOnTheCpu) {
  tg::Tensor x = tg::zeros({3, 0});
  EXPECT_EQ(tg::exp(x).shape(), (Shape{3, 0}));
  EXPECT_EQ(tg::transpose(x, {1, 0}).shape(), (Shape{0, 3}));
  EXPECT_EQ(tg::sum(x, {1}).to_vector(), std::vector<float>(3, 0.0f));
  std::vector<float> maxes = tg::max(x, {1}).to_vector();
  for (float m : maxes) EXPECT_EQ(m, -std::numeric_limits<float>::infinity());
  for (float m : tg::mean(x, {1}).to_vector()) EXPECT_TRUE(std::isnan(m));
  tg::Tensor a = tg::zeros({2, 0}), b = tg::zeros({0, 4});
  EXPECT_EQ(tg::matmul(a, b).to_vector(), std::vector<float>(8, 0.0f));

  auto f = tg::jit([](const tg::Tensor& p, const tg::Tensor& q) {
    return std::make_tuple(tg::exp(p) * 2.0f, tg::sum(p, {1}) + 1.0f, tg::matmul(q, tg::transpose(q, {1, 0})));
  });
  auto [e, s, m] = f(x, a);
  EXPECT_EQ(e.shape(), (Shape{3, 0}));
  EXPECT_EQ(s.to_vector(), std::vector<float>(3, 1.0f));
  EXPECT_EQ(m.to_vector(), std::vector<float>(4, 0.0f));
}

//===----------------------------------------------------------------------===//
// Textual IR through the compiler (no GPU: plans and NVRTC)
//===----------------------------------------------------------------------===//

struct Parsed {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::string diagnostics;
};

/// compiler::parseTgModule under the compile lock, with the diagnostics it emitted.
Parsed parse(const std::string& text) {
  Parsed p;
  tg::compiler::DiagnosticCollector diags(tg::compiler::sharedContext());
  p.module = tg::compiler::parseTgModule(text, "test.mlir", tg::compiler::sharedContext());
  p.diagnostics = diags.text();
  return p;
}

/// Parses and compiles `text` for `arch`; NVRTC-compiles every kernel where NVRTC is found.
tg::rt::Plan compileText(const std::string& text, const std::string& arch = "sm_90a") {
  std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
  Parsed p = parse(text);
  if (!p.module) throw tg::Error("does not parse:\n" + p.diagnostics);
  tg::compiler::PipelineOptions options;
  options.codegen.arch = arch;
  tg::rt::Plan plan = tg::compiler::compile(*p.module, options);
  if (tg::rt::nvrtcAvailable())
    for (const tg::rt::KernelSource& k : plan.kernels) {
      tg::rt::NvrtcResult r = tg::rt::compileCuda(k.source, k.name + ".cu", arch, tg::rt::defaultNvrtcOptions());
      EXPECT_FALSE(r.cubin.empty()) << k.name << " for " << arch;
    }
  return plan;
}

int buffersOfKind(const tg::rt::Plan& plan, tg::rt::PlanBuffer::Kind kind) {
  int n = 0;
  for (const tg::rt::PlanBuffer& b : plan.buffers) n += b.kind == kind;
  return n;
}

TEST(ParseModule, RefusesWhatCrashesMlirsParser) {
  using namespace std::string_literals;  // "..."s keeps the NUL bytes
  for (const std::string& text : {"module attributes {a = array<index: 1>} {}"s,
                           "module attributes {a = array<  index>} {}"s,
                           "!t = index\nmodule attributes {a = array<!t: 1>} {}"s,
                           "module attributes {a = array<// comment\n index: 1>} {}"s,
                           // Found by tg_fuzz_ir: the lexer skips NUL bytes like spaces.
                           "module attributes {a = array\0\0<index: 1>} {}"s}) {
    std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
    Parsed p = parse(text);
    EXPECT_FALSE(p.module) << text;
    EXPECT_NE(p.diagnostics.find("crashes MLIR 22's parser"), std::string::npos) << p.diagnostics;
  }
  // Not a dense array of index: strings, comments, other words and i64 arrays pass the scan.
  for (const char* text : {"// array<index: 1>", "module attributes {a = \"array<index: 1>\"} {}",
                           "module attributes {b.array = array<i64: 1>, c.idx = 1 : index} {}",
                           "module attributes {b.subarray = 1} {}"})
    EXPECT_FALSE(tg::compiler::knownParserCrash(text)) << text;
  auto crash = tg::compiler::knownParserCrash("\n\n  x = array<index: 1>");
  ASSERT_TRUE(crash);
  EXPECT_EQ(crash->line, 3u);
}

TEST(ParseModule, RefusesWhatIsNotOneTgFunction) {
  struct Case {
    const char* text;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {"func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32>", "is a declaration"},
           {"func.func @f(%x: tensor<*xf32>) {\n  return\n}", "tensor<*xf32> is not a ranked tensor"},
           {"func.func @f(%x: tensor<4xi64>) -> tensor<4xi64> {\n  return %x : tensor<4xi64>\n}",
            "does not have a tg element type"},
           {"module {}", "holds no func.func"},
           {"func.func @f() {\n  return\n}\nfunc.func @g() {\n  return\n}", "more than one func.func"},
           {"func.func @f() -> tensor<4294967296x4294967296xf32> {\n"
            "  %c = tg.constant dense<1.5> : tensor<4294967296x4294967296xf32>\n"
            "  return %c : tensor<4294967296x4294967296xf32>\n}",
            "at most 2^48 bytes"},
       }) {
    std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
    Parsed p = parse(c.text);
    EXPECT_FALSE(p.module) << c.text;
    EXPECT_NE(p.diagnostics.find(c.message), std::string::npos) << c.text << "\n" << p.diagnostics;
  }
}

TEST(ZeroSize, KernelsOverNoElementsAreNotLaunched) {
  tg::rt::Plan plan = compileText(R"(
    func.func @f(%x: tensor<0xf32>, %y: tensor<2x0x3xf32>) -> (tensor<3x0xf32>, tensor<0x2x3xf32>) {
      %b = tg.broadcast %x dims = [1] : tensor<0xf32> to tensor<3x0xf32>
      %t = tg.transpose %y perm = [1, 0, 2] : tensor<2x0x3xf32> to tensor<0x2x3xf32>
      %e = tg.exp %t : tensor<0x2x3xf32>
      %c = tg.cmp gt, %x, %x : tensor<0xf32>
      tg.check %c id = 1 : tensor<0xi1>
      return %b, %e : tensor<3x0xf32>, tensor<0x2x3xf32>
    })");
  EXPECT_TRUE(plan.launches.empty()) << plan.str();
  for (int out : plan.outputs) EXPECT_EQ(plan.buffers[out].bytes, 0);
}

TEST(ZeroSize, EmptyAxesAndAZeroKStillComputeTheirResults) {
  for (const std::string arch : {"sm_90a", "sm_80"}) {
    tg::rt::Plan plan = compileText(R"(
      func.func @f(%x: tensor<3x0xbf16>, %a: tensor<128x0xbf16>, %b: tensor<0x128xbf16>)
          -> (tensor<3xbf16>, tensor<3xbf16>, tensor<128x128xbf16>) {
        %s = tg.reduce_sum %x axes = [1] : tensor<3x0xbf16> to tensor<3xbf16>
        %m = tg.reduce_max %x axes = [1] : tensor<3x0xbf16> to tensor<3xbf16>
        %p = tg.matmul %a, %b : tensor<128x0xbf16>, tensor<0x128xbf16> -> tensor<128x128xbf16>
        return %s, %m, %p : tensor<3xbf16>, tensor<3xbf16>, tensor<128x128xbf16>
      })", arch);
    ASSERT_EQ(plan.launches.size(), 3u) << plan.str();
    EXPECT_NE(plan.kernels[2].summary.find("simt"), std::string::npos) << plan.kernels[2].summary;
  }
}

TEST(Splats, AReturnedSplatIsAFillKernelNotAHostBuffer) {
  // 2^40 elements: expanding it on the host was an uncaught std::bad_alloc.
  tg::rt::Plan plan = compileText(R"(
    func.func @f() -> (tensor<1099511627776xf32>, tensor<4x4xf32>) {
      %c = tg.constant dense<1.5> : tensor<1099511627776xf32>
      %s = tg.constant dense<2.0> : tensor<16xf32>
      %r = tg.reshape %s : tensor<16xf32> to tensor<4x4xf32>
      return %c, %r : tensor<1099511627776xf32>, tensor<4x4xf32>
    })");
  EXPECT_EQ(buffersOfKind(plan, tg::rt::PlanBuffer::Kind::Constant), 0) << plan.str();
  ASSERT_EQ(plan.launches.size(), 2u) << plan.str();
  EXPECT_EQ(plan.buffers[plan.outputs[0]].bytes, int64_t(1) << 42);
  for (const tg::rt::KernelSource& k : plan.kernels) EXPECT_NE(k.name.find("_fill"), std::string::npos) << k.name;
  // A dense (non-splat) constant is still uploaded as data.
  tg::rt::Plan dense = compileText(R"(
    func.func @f() -> tensor<2xf32> {
      %c = tg.constant dense<[1.0, 2.0]> : tensor<2xf32>
      return %c : tensor<2xf32>
    })");
  ASSERT_EQ(buffersOfKind(dense, tg::rt::PlanBuffer::Kind::Constant), 1) << dense.str();
  EXPECT_TRUE(dense.launches.empty());
}

TEST(Splats, AMatmulWithASplatOperandCompilesForEveryPath) {
  const std::string ir = R"(
    func.func @f(%x: tensor<128x128xbf16>) -> tensor<128x128xbf16> {
      %c = tg.constant dense<2.0> : tensor<128x128xbf16>
      %y = tg.matmul %x, %c transpose_b : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xbf16>
      return %y : tensor<128x128xbf16>
    })";
  for (const std::string arch : {"sm_90a", "sm_80", "sm_75"}) {
    tg::rt::Plan plan = compileText(ir, arch);
    ASSERT_EQ(plan.launches.size(), 2u) << plan.str();  // the fill, then the gemm
    EXPECT_NE(plan.kernels[0].name.find("_fill"), std::string::npos);
  }
}

TEST(Splats, JitFullIsASplatOperand) {
  // tg::full inside a jit function records a splat constant: on the CPU the interpreter runs
  // it; for CUDA the traced IR compiles (it did not: "matmul operands must be contiguous").
  auto f = tg::jit([](const tg::Tensor& x) { return tg::matmul(x, tg::full({64, 64}, 0.5)); });
  tg::Tensor x = tg::ones({64, 64});
  EXPECT_EQ(f(x).to_vector(), std::vector<float>(64 * 64, 32.0f));
  std::string ir = f.trace_ir(tg::TensorSpec{{64, 64}, DType::F32});
  for (const std::string arch : {"sm_90a", "sm_80"}) {
    tg::rt::Plan plan = compileText(ir, arch);
    EXPECT_EQ(plan.launches.size(), 2u) << plan.str();
  }
}

TEST(Splats, ReductionsAndChecksReadTheSplatsValue) {
  tg::rt::Plan plan = compileText(R"(
    func.func @f() -> tensor<4xf32> {
      %c = tg.constant dense<0.5> : tensor<4x8xf32>
      %s = tg.reduce_sum %c axes = [1] : tensor<4x8xf32> to tensor<4xf32>
      %t = tg.constant dense<true> : tensor<4xi1>
      tg.check %t id = 1 : tensor<4xi1>
      return %s : tensor<4xf32>
    })");
  EXPECT_EQ(plan.launches.size(), 2u) << plan.str();
  EXPECT_EQ(buffersOfKind(plan, tg::rt::PlanBuffer::Kind::Constant), 0) << plan.str();
}

}  // namespace
