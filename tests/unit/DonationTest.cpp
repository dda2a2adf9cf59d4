//===- DonationTest.cpp - JitOptions::donate and in-place updates ---------===//
//
// On the CPU: a donated argument gives up its data after the call (every handle of it; reads
// and ops name the call), the results are right, bad donations are errors at the call's line.
// Code generation: the in-place update kernel compiles with NVRTC, writes only the update, and
// the plan says which input it writes and why each update is or is not in place. The GPU suite
// runs it (GpuIndexing.*).
//
//===----------------------------------------------------------------------===//
#include "tg/Compiler/Context.h"
#include "tg/Compiler/Driver.h"
#include "tg/Runtime/KernelCache.h"
#include "tg/Runtime/Nvrtc.h"
#include "tg/tg.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <functional>
#include <mutex>
#include <map>
#include <string>
#include <tuple>

namespace {

using tg::DType;
using tg::Tensor;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

Tensor ids(std::vector<int32_t> values, tg::Shape shape) { return tg::from_vector(values, std::move(shape)); }

auto update = [](const Tensor& cache, const Tensor& row, const Tensor& pos) {
  return std::tuple{tg::dynamic_update_slice(cache, row, 0, pos), pos + 1};
};

TEST(Donation, ADonatedArgumentIsUnusableAfterTheCallAndTheResultIsRight) {
  auto f = tg::jit(update, {.name = "step", .donate = {0}});
  Tensor cache = tg::randn({5, 3}, DType::F32, 1), row = tg::randn({1, 3}, DType::F32, 2);
  Tensor pos = ids({2}, {});
  const std::vector<float> before = cache.to_vector();
  auto [want, next] = update(cache, row, pos);
  Tensor alias = cache;  // another handle of the same tensor
  unsigned line = __LINE__ + 1;
  auto [got, p] = f(cache, row, pos);
  EXPECT_EQ(got.to_vector(), want.to_vector());
  EXPECT_EQ(p.to_vector(), next.to_vector());
  EXPECT_NE(got.to_vector(), before);  // the update is there
  for (const Tensor* t : {&cache, &alias}) {
    try {
      (void)t->to_vector();
      ADD_FAILURE() << "a donated tensor was read";
    } catch (const tg::Error& e) {
      EXPECT_TRUE(contains(e.what(), "the tensor was donated to jit 'step' (argument 0, called at")) << e.what();
      EXPECT_TRUE(contains(e.what(), "DonationTest.cpp:" + std::to_string(line))) << e.what();
    }
  }
  EXPECT_THROW((void)(cache + 1.0f), tg::Error);
  try {
    (void)f(cache, row, pos);
    ADD_FAILURE() << "a donated tensor was passed again";
  } catch (const tg::Error& e) {
    EXPECT_TRUE(contains(e.what(), "jit 'step': argument 0: the tensor was donated to jit 'step'")) << e.what();
    EXPECT_TRUE(contains(e.location().file, "DonationTest.cpp")) << e.what();
  }
  // The loop as it is meant to be written: the result passed back.
  Tensor c = got;
  for (int i = 0; i < 2; ++i) std::tie(c, p) = f(c, row, p);  // rows 3 and 4
  EXPECT_EQ(p.to_vector(), (std::vector<float>{5}));
  std::vector<float> rows = c.to_vector(), r = row.to_vector();
  for (size_t j = 0; j < 3; ++j) EXPECT_EQ(rows[12 + j], r[j]);
  for (size_t j = 0; j < 3; ++j) EXPECT_EQ(rows[j], before[j]);  // row 0 untouched
}

TEST(Donation, BadDonationsAreErrorsAtTheCall) {
  auto f = tg::jit(update, {.donate = {3}});
  Tensor cache = tg::randn({5, 3}), row = tg::randn({1, 3}), pos = ids({0}, {});
  try {
    (void)f(cache, row, pos);
    ADD_FAILURE();
  } catch (const tg::Error& e) {
    EXPECT_TRUE(contains(e.what(), "JitOptions::donate names argument 3, but the call passes 3")) << e.what();
  }
  auto g = tg::jit([](const Tensor& a, const Tensor& b) { return a + b; }, {.donate = {1}});
  try {
    (void)g(cache, cache);
    ADD_FAILURE();
  } catch (const tg::Error& e) {
    EXPECT_TRUE(contains(e.what(), "argument 1 is donated, and the same tensor is also argument 0")) << e.what();
  }
  EXPECT_NO_THROW((void)cache.to_vector());  // nothing was donated
}

/// The pipeline's plan for `ir` (sm_90a).
tg::rt::Plan planOf(const std::string& ir) {
  std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(ir, &tg::compiler::sharedContext());
  if (!module) throw std::runtime_error("does not parse");
  tg::compiler::PipelineOptions options;
  options.codegen.arch = "sm_90a";
  return tg::compiler::compile(*module, options);
}

TEST(Donation, InPlaceUpdatesCompileAndThePlanSaysWhatTheyWrite) {
  const std::string ir = R"(
func.func @f(%cache: tensor<2x16x8xbf16> {tg.donated}, %k: tensor<2x1x8xbf16>, %pos: tensor<i32>,
             %x: tensor<4x8xf32>, %row: tensor<1x8xf32>) -> (tensor<2x16x8xbf16>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<2x16xf32>) {
  %0 = tg.dynamic_update_slice %cache, %k, %pos axis = 1 offsets = [0, 0, 0] check = 1 : (tensor<2x16x8xbf16>, tensor<2x1x8xbf16>, tensor<i32>) -> tensor<2x16x8xbf16>
  %1 = tg.neg %x : tensor<4x8xf32>
  %2 = tg.dynamic_update_slice %1, %row, %pos axis = 0 offsets = [0, 0] check = 2 : (tensor<4x8xf32>, tensor<1x8xf32>, tensor<i32>) -> tensor<4x8xf32>
  %3 = tg.dynamic_update_slice %x, %row, %pos axis = 0 offsets = [0, 0] check = 3 : (tensor<4x8xf32>, tensor<1x8xf32>, tensor<i32>) -> tensor<4x8xf32>
  %4 = tg.exp %x : tensor<4x8xf32>
  %5 = tg.reshape %4 : tensor<4x8xf32> to tensor<2x16xf32>
  %6 = tg.slice %row starts = [0, 0] limits = [1, 2] steps = [1, 1] : tensor<1x8xf32> to tensor<1x2xf32>
  %7 = tg.dynamic_update_slice %5, %6, %pos axis = 1 offsets = [1, 0] check = 4 : (tensor<2x16xf32>, tensor<1x2xf32>, tensor<i32>) -> tensor<2x16xf32>
  return %0, %2, %3, %7 : tensor<2x16x8xbf16>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<2x16xf32>
})";
  tg::rt::Plan plan = planOf(ir);
  EXPECT_EQ(plan.writtenInputs, (std::vector<int>{0}));
  ASSERT_EQ(plan.updates.size(), 4u);
  EXPECT_TRUE(contains(plan.updates[0], "in place, in the memory of argument 0 (donated)")) << plan.updates[0];
  EXPECT_TRUE(contains(plan.updates[1], "in place, in the memory of the result of the kernel")) << plan.updates[1];
  EXPECT_TRUE(contains(plan.updates[2], "copies its input, since its input is argument 3")) << plan.updates[2];
  // Through a reshape (the same bytes): in place, in the exp's buffer.
  EXPECT_TRUE(contains(plan.updates[3], "in place, in the memory of the result of the kernel")) << plan.updates[3];
  // Result 0 is argument 0's memory; result 1 the neg's output buffer.
  const tg::rt::PlanBuffer& r0 = plan.buffers[static_cast<size_t>(plan.outputs[0])];
  EXPECT_EQ(r0.kind, tg::rt::PlanBuffer::Kind::Alias);
  EXPECT_EQ(plan.buffers[static_cast<size_t>(r0.index)].kind, tg::rt::PlanBuffer::Kind::Input);
  int inPlaceKernels = 0;
  for (const tg::rt::KernelSource& k : plan.kernels) {
    if (!contains(k.summary, "in place")) continue;
    ++inPlaceKernels;
    EXPECT_FALSE(contains(k.source, "__restrict__ in0")) << k.source;  // in0 aliases out0
  }
  EXPECT_EQ(inPlaceKernels, 3);
  EXPECT_TRUE(contains(plan.kernels[0].summary, "16 of 256 element(s) written")) << plan.kernels[0].summary;
  std::string why;
  if (!tg::rt::nvrtcAvailable(&why)) GTEST_SKIP() << "NVRTC: " << why;
  for (const tg::rt::KernelSource& k : plan.kernels)
    for (const char* arch : {"sm_90a", "sm_80"}) {
      tg::rt::NvrtcResult r = tg::rt::compileCuda(k.source, k.name + ".cu", arch, tg::rt::defaultNvrtcOptions());
      EXPECT_FALSE(r.cubin.empty()) << k.name << " " << arch;
    }
}

/// Two layers of one [layers, heads, positions, dim] cache of `dims` (bf16, donated): each
/// writes its keys at the position, then reads its layer's keys (q @ keys^T, a gemv) and
/// values (probs @ values). Both updates report one check site, as a layer loop's do.
std::string twoLayers(int heads, int positions, int dim) {
  auto t = [](std::initializer_list<int> d) {
    std::string s = "tensor<";
    for (int x : d) s += std::to_string(x) + "x";
    return s + "bf16>";
  };
  const std::string cache = t({2, heads, positions, dim}), k = t({1, heads, 1, dim}),
                    layer = t({1, heads, positions, dim}), keys = t({heads, positions, dim}),
                    q = t({heads, 1, dim}), scores = t({heads, 1, positions}), probs = t({heads, 1, positions}),
                    out = t({heads, 1, dim});
  std::string ir = "func.func @f(%c: " + cache + " {tg.donated}, %k0: " + k + ", %k1: " + k +
                   ", %pos: tensor<i32>, %q: " + q + ", %p: " + probs + ") -> (" + cache + ", " + scores +
                   ", " + scores + ", " + out + ", " + out + ") {\n";
  const std::string hi = std::to_string(heads), pi = std::to_string(positions), di = std::to_string(dim);
  for (int l = 0; l < 2; ++l) {
    const std::string L = std::to_string(l), prev = l == 0 ? "%c" : "%c0";
    ir += "  %c" + L + " = tg.dynamic_update_slice " + prev + ", %k" + L + ", %pos axis = 2 offsets = [" + L +
          ", 0, 0, 0] check = 1 : (" + cache + ", " + k + ", tensor<i32>) -> " + cache + "\n";
  }
  for (int l = 0; l < 2; ++l) {
    const std::string L = std::to_string(l), L1 = std::to_string(l + 1);
    ir += "  %w" + L + " = tg.slice %c1 starts = [" + L + ", 0, 0, 0] limits = [" + L1 + ", " + hi + ", " + pi +
          ", " + di + "] steps = [1, 1, 1, 1] : " + cache + " to " + layer + "\n";
    ir += "  %r" + L + " = tg.reshape %w" + L + " : " + layer + " to " + keys + "\n";
    ir += "  %s" + L + " = tg.matmul %q, %r" + L + " transpose_b : " + q + ", " + keys + " -> " + scores + "\n";
    ir += "  %o" + L + " = tg.matmul %p, %r" + L + " : " + probs + ", " + keys + " -> " + out + "\n";
  }
  return ir + "  return %c1, %s0, %s1, %o0, %o1 : " + cache + ", " + scores + ", " + scores + ", " + out + ", " +
         out + "\n}\n";
}

// The layers of a KV cache differ only in where they write and read it: at a multiple of 256
// bytes the launch adds that offset to the pointer (a view of the cache), so the layers share
// each kernel, and the windows are read in place (no copy kernel). Otherwise the offset stays
// in the code (the part past the last multiple of 256 bytes).
TEST(Donation, LayersOfOneCacheShareKernelsThroughViews) {
  {
    SCOPED_TRACE("layers 2048 bytes apart");
    tg::rt::Plan plan = planOf(twoLayers(4, 8, 32));
    std::map<std::string, std::vector<int>> launchesOf;  // kernel name -> launch indices
    for (size_t i = 0; i < plan.launches.size(); ++i)
      launchesOf[plan.kernels[plan.launches[i].kernel].name].push_back(static_cast<int>(i));
    EXPECT_EQ(plan.launches.size(), 6u) << "2 updates, 2 gemvs, 2 wgmma matmuls: no copies\n" << plan.str();
    EXPECT_EQ(plan.kernels.size(), 3u) << plan.str();
    for (const auto& [name, launches] : launchesOf) {
      ASSERT_EQ(launches.size(), 2u) << name << "\n" << plan.str();
      // The same arguments but the cache's: the second layer's is a view 2048 bytes in.
      const tg::rt::PlanLaunch &a = plan.launches[launches[0]], &b = plan.launches[launches[1]];
      ASSERT_EQ(a.buffers.size(), b.buffers.size());
      int views = 0;
      for (size_t x = 0; x < a.buffers.size(); ++x) {
        const tg::rt::PlanBuffer& vb = plan.buffers[static_cast<size_t>(b.buffers[x])];
        if (a.buffers[x] == b.buffers[x] || vb.offset == 0) continue;
        ++views;
        EXPECT_EQ(vb.kind, tg::rt::PlanBuffer::Kind::Alias) << name;
        EXPECT_EQ(vb.offset, 2048u) << name;
        EXPECT_EQ(vb.bytes, 2048u) << name;
      }
      EXPECT_EQ(views, 1) << name << "\n" << plan.str();
    }
  }
  {
    SCOPED_TRACE("layers 192 bytes apart");
    tg::rt::Plan plan = planOf(twoLayers(4, 3, 8));
    // No view holds 96 elements: the updates and the gemvs (which read windows at any offset,
    // so no copy either) take their offsets in code, one kernel each.
    int copies = 0, views = 0;
    for (const tg::rt::KernelSource& k : plan.kernels) copies += contains(k.summary, "elementwise") ? 1 : 0;
    for (const tg::rt::PlanBuffer& b : plan.buffers) views += contains(b.label, "view of") ? 1 : 0;
    EXPECT_EQ(copies, 0) << plan.str();
    EXPECT_EQ(views, 0) << plan.str();
    EXPECT_EQ(plan.kernels.size(), 6u) << plan.str();
  }
  std::string why;
  if (!tg::rt::nvrtcAvailable(&why)) GTEST_SKIP() << "NVRTC: " << why;
  for (const tg::rt::KernelSource& k : planOf(twoLayers(4, 8, 32)).kernels) {
    tg::rt::NvrtcResult r = tg::rt::compileCuda(k.source, k.name + ".cu", "sm_90a", tg::rt::defaultNvrtcOptions());
    EXPECT_FALSE(r.cubin.empty()) << k.name;
  }
}

}  // namespace
