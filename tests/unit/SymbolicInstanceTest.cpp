//===- SymbolicInstanceTest.cpp - Symbolic IR at a size is the trace at that size ===//
//
// Dynamic dims (issue 18) are inferred from traces at a few sizes (SymbolicTrace.h) and
// imported as IR with `?` dims (TraceImporter.h, SymbolicTypes.h). The whole chain is checked
// here the strong way: for sizes the inference never traced (primes, the top of the range,
// sizes far from the call's), the symbolic module instantiated at those sizes
// (instantiateModule) must be, after canonicalization, the very module the lambda's own trace
// at those sizes imports to. A size fitted wrong, a bound left at the call's value, a splat of
// the wrong shape all show up as a difference.
//
//===----------------------------------------------------------------------===//
#include "tg/Compiler/Context.h"
#include "tg/Compiler/Driver.h"
#include "tg/Dialect/SymbolicTypes.h"
#include "tg/Dialect/TgOps.h"
#include "tg/Frontend/SymbolicTrace.h"
#include "tg/Frontend/TraceImporter.h"
#include "tg/Transforms/Passes.h"
#include "tg/tg.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace {

using tg::DType;
using tg::Tensor;
using Fn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

struct Arg {
  tg::Shape shape;
  DType dtype = DType::F32;
};

std::vector<tg::graph::TensorType> typesOf(const std::vector<Arg>& args) {
  std::vector<tg::graph::TensorType> out;
  for (const Arg& a : args) out.push_back({a.dtype, a.shape});
  return out;
}

/// The module canonicalized, with its constants (which canonicalization hoists in the order it
/// meets or makes them) first in the order of their text, so that two modules that hold the
/// same ops print the same.
std::string canonical(mlir::ModuleOp module) {
  mlir::PassManager pm(module->getContext());
  pm.addPass(mlir::createCanonicalizerPass());
  EXPECT_TRUE(mlir::succeeded(pm.run(module)));
  module.walk([](mlir::func::FuncOp func) {
    std::vector<std::pair<std::string, mlir::Operation*>> constants;
    for (mlir::Operation& op : func.getBody().front())
      if (auto c = mlir::dyn_cast<tg::ir::ConstantOp>(op)) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << c.getValue();
        constants.push_back({text, &op});
      }
    std::stable_sort(constants.begin(), constants.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    mlir::Block& block = func.getBody().front();
    for (auto it = constants.rbegin(); it != constants.rend(); ++it) it->second->moveBefore(&block, block.begin());
  });
  return tg::compiler::printModule(module);
}

/// Adds passes to a pass manager (none: the imports are compared as they are).
using Passes = std::function<void(mlir::PassManager&)>;

/// Runs `passes` on `module`.
void runPasses(mlir::ModuleOp module, const Passes& passes) {
  if (!passes) return;
  mlir::PassManager pm(module->getContext());
  passes(pm);
  ASSERT_TRUE(mlir::succeeded(pm.run(module))) << tg::compiler::printModule(module);
}

/// Infers `fn`'s symbolic IR at `args`, then compares it, instantiated at each of `sizes`,
/// with the import of the lambda's trace at those sizes. With `passes`, each side is compared
/// after them (run on the symbolic module before it is instantiated): the passes must do to
/// dynamic dims what they do to every size in their range.
void checkInstances(const Fn& fn, const std::vector<Arg>& args, const std::vector<tg::DynamicDim>& dynamic,
                    const std::vector<std::vector<int64_t>>& sizes, const Passes& passes = {}) {
  tg::detail::DynamicDims dims(dynamic, {});
  const std::vector<tg::graph::TensorType> types = typesOf(args);
  tg::detail::SymbolicInference inferred = tg::detail::inferSymbolicTrace(
      tg::detail::TraceRef(fn), types, tg::Device::CPU, dims, dims.valuesOf(types, {}), {});
  ASSERT_TRUE(inferred.trace) << inferred.whyNot;
  std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
  mlir::MLIRContext& context = tg::compiler::sharedContext();
  std::string whyNot;
  mlir::OwningOpRef<mlir::ModuleOp> symbolic = tg::detail::importSymbolicTrace(*inferred.trace, context, "f", whyNot);
  ASSERT_TRUE(symbolic) << whyNot;
  runPasses(*symbolic, passes);
  for (const std::vector<int64_t>& at : sizes) {
    std::string text;
    for (size_t i = 0; i < at.size(); ++i) text += (i ? ", " : "") + dims.names()[i] + " = " + std::to_string(at[i]);
    SCOPED_TRACE(text);
    std::string error;
    mlir::OwningOpRef<mlir::ModuleOp> instance = tg::ir::instantiateModule(*symbolic, at, error);
    ASSERT_TRUE(instance) << error;
    // The lambda's own trace at these sizes (the inference's base trace there).
    const std::vector<tg::graph::TensorType> there = dims.withSizes(types, at);
    tg::detail::SymbolicInference direct = tg::detail::inferSymbolicTrace(
        tg::detail::TraceRef(fn), there, tg::Device::CPU, dims, dims.valuesOf(there, {}), {});
    ASSERT_TRUE(direct.trace) << direct.whyNot;
    mlir::OwningOpRef<mlir::ModuleOp> traced = tg::detail::importTrace(direct.trace->trace, context, "f");
    runPasses(*traced, passes);
    EXPECT_EQ(canonical(*instance), canonical(*traced));
  }
}

TEST(SymbolicInstance, APromptOfAnyLengthIsTheTraceOfThatLength) {
  // The decoder's prefill in small: positions from iota plus a device-side start, a rotary
  // embedding over halves, grouped heads, a causal mask, the last row, pos + T.
  Fn fn = [](const std::vector<Tensor>& a) {
    const Tensor &x = a[0], &pos = a[1];  // [T, 32], [] i32
    const int64_t T = x.shape()[0];
    Tensor positions = tg::iota({T}, 0, DType::I32, x.device()) + pos;
    Tensor angles = tg::reshape(tg::cast(positions, DType::F32), {T, 1}) * tg::arange(8, DType::F32, x.device());
    Tensor heads = tg::transpose(tg::reshape(x, {T, 2, 16}), 0, 1);  // [2, T, 16]
    Tensor x1 = tg::slice(heads, -1, 0, 8), x2 = tg::slice(heads, -1, 8);
    Tensor c = tg::cos(angles), s = tg::sin(angles);
    Tensor rotated = tg::concat({x1 * c - x2 * s, x2 * c + x1 * s}, -1);
    Tensor scores = tg::matmul(rotated, tg::transpose(rotated, 1, 2)) * 0.25f;  // [2, T, T]
    Tensor row = tg::iota({1, T, 1}, 1, DType::I32, x.device()), key = tg::iota({1, 1, T}, 2, DType::I32, x.device());
    Tensor p = tg::softmax(tg::where(tg::le(key, row), scores, -INFINITY), -1);
    Tensor o = tg::reshape(tg::transpose(tg::matmul(p, heads), 0, 1), {T, 32});
    Tensor last = tg::slice(tg::layer_norm(o), 0, T - 1);
    return std::vector<Tensor>{last, pos + static_cast<int32_t>(T), tg::sum(o, {0})};
  };
  checkInstances(fn, {{{9, 32}}, {{}, DType::I32}}, {{0, 0, tg::Dim("T", 1, 512)}},
                 {{2}, {3}, {8}, {10}, {97}, {256}, {511}, {512}});
}

/// Two symbols, products of them through reshapes, a matmul on the rows, a row reduction,
/// layer_norm and softmax.
Fn batchOfSequences() {
  Tensor w = tg::randn({16, 24}, DType::F32, 3, tg::Device::CPU);
  return [w](const std::vector<Tensor>& a) {
    const Tensor &x = a[0], &bias = a[1];  // [B, S, 16], [B, 1, 16]
    const int64_t B = x.shape()[0], S = x.shape()[1];
    Tensor h = tg::reshape(tg::layer_norm(x + bias), {B * S, 16});
    Tensor y = tg::reshape(tg::relu(tg::matmul(h, w)), {B, S, 24});
    Tensor firstTokens = tg::slice(y, 1, 0, 1);  // [B, 1, 24]
    return std::vector<Tensor>{tg::softmax(y, -1), tg::max(y, {1}), firstTokens};
  };
}

const tg::Dim kBatch("batch", 1, 64), kSeq("seq", 1, 300);
const std::vector<std::vector<int64_t>> kBatchSizes = {{2, 2}, {3, 5}, {64, 300}, {17, 2}, {2, 251}, {5, 8}};

TEST(SymbolicInstance, ABatchOfSequencesIsTheTraceOfThatBatch) {
  checkInstances(batchOfSequences(), {{{4, 7, 16}}, {{4, 1, 16}}}, {{0, 0, kBatch}, {0, 1, kSeq}, {1, 0, kBatch}},
                 kBatchSizes);
}

TEST(SymbolicInstance, DecomposingDynamicDimsIsDecomposingEachSize) {
  // tg-decompose on the symbolic module (result types from SymbolicInference.h), then
  // instantiated, against tg-decompose on the trace at each size.
  checkInstances(batchOfSequences(), {{{4, 7, 16}}, {{4, 1, 16}}}, {{0, 0, kBatch}, {0, 1, kSeq}, {1, 0, kBatch}},
                 kBatchSizes, [](mlir::PassManager& pm) {
                   pm.addNestedPass<mlir::func::FuncOp>(tg::createTgDecomposeComposites());
                 });
}

TEST(SymbolicInstance, SizesOutsideTheRangeAreRefused) {
  Fn fn = [](const std::vector<Tensor>& a) { return std::vector<Tensor>{a[0] * 2.0f}; };
  tg::detail::DynamicDims dims({{0, 0, tg::Dim("n", 1, 8)}}, {});
  const std::vector<tg::graph::TensorType> types = {{DType::F32, {4}}};
  tg::detail::SymbolicInference inferred = tg::detail::inferSymbolicTrace(
      tg::detail::TraceRef(fn), types, tg::Device::CPU, dims, dims.valuesOf(types, {}), {});
  ASSERT_TRUE(inferred.trace) << inferred.whyNot;
  std::lock_guard<std::mutex> lock(tg::compiler::compileMutex());
  std::string whyNot, error;
  mlir::OwningOpRef<mlir::ModuleOp> symbolic =
      tg::detail::importSymbolicTrace(*inferred.trace, tg::compiler::sharedContext(), "f", whyNot);
  ASSERT_TRUE(symbolic) << whyNot;
  const std::vector<int64_t> nine = {9};
  EXPECT_FALSE(tg::ir::instantiateModule(*symbolic, nine, error));
  EXPECT_EQ(error, "n = 9 is outside [2, 8]");  // sizes from 2: a size of 1 is a variant of its own
}

}  // namespace
