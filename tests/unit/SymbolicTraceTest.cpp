//===- SymbolicTraceTest.cpp - Dynamic dims: checks and symbolic sizes ----===//
//
// JitOptions::dynamic (DynamicDims.h): the options and each call's sizes are checked, with
// errors at the right line. Symbolic sizes (SymbolicTrace.h): the numbers of a trace that
// follow a dynamic dim are found as polynomials of the symbols (`batch*seq`, `T - 1`,
// `4*T`), and what cannot be (a division, a graph that changes with a size, a constant made
// from a size, a graph break) is named with its op.
//
//===----------------------------------------------------------------------===//
#include "tg/Frontend/Program.h"
#include "tg/Frontend/SymbolicTrace.h"
#include "tg/tg.h"

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using tg::DType;
using tg::Tensor;
using tg::detail::DynamicDims;
using tg::detail::SymbolicInference;
using Fn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << part << "' not in:\n" << text;
}

/// Infers the symbolic sizes of `fn` for f32 arguments of `shapes` with `dynamic`.
SymbolicInference infer(const Fn& fn, const std::vector<tg::Shape>& shapes, const std::vector<tg::DynamicDim>& dynamic) {
  DynamicDims dims(dynamic, {});
  std::vector<tg::graph::TensorType> types;
  for (const tg::Shape& s : shapes) types.push_back({DType::F32, s});
  const std::vector<int64_t> values = dims.valuesOf(types, {});
  return tg::detail::inferSymbolicTrace(tg::detail::TraceRef(fn), types, tg::Device::CPU, dims, values, {});
}

const tg::Dim kBatch("batch", 1, 256), kSeq("seq", 1, 8192);

TEST(SymbolicTrace, ProductsOfDimsThroughReshapesAndMatmuls) {
  Tensor w = tg::randn({16, 32}, DType::F32, 1, tg::Device::CPU);
  Fn fn = [&](const std::vector<Tensor>& a) {
    const Tensor& x = a[0];  // [B, S, 16]
    const int64_t B = x.shape()[0], S = x.shape()[1];
    Tensor rows = tg::reshape(tg::relu(x) * 2.0f, {B * S, 16});
    return std::vector<Tensor>{tg::matmul(rows, w), tg::sum(x, {1})};
  };
  SymbolicInference r = infer(fn, {{4, 8, 16}}, {{0, 0, kBatch}, {0, 1, kSeq}});
  ASSERT_TRUE(r.trace) << r.whyNot;
  const std::string text = r.trace->str();
  EXPECT_TRUE(contains(text, "result 0: f32[batch*seq, 32]"));
  EXPECT_TRUE(contains(text, "result 1: f32[batch, 16]"));
  EXPECT_TRUE(contains(text, "reshape"));
  EXPECT_TRUE(contains(text, "shape [batch*seq, 16]"));
  // The affine fit (3 probes) missed batch*seq, so the whole grid was traced: the call's
  // sizes, 3 more corners, and the two checks.
  EXPECT_EQ(r.traces, 6);
}

TEST(SymbolicTrace, DecoderStyleSizesFromTheLengthOfAPrompt) {
  Fn fn = [](const std::vector<Tensor>& a) {
    const Tensor& tokens = a[0];  // [T, 64]
    const int64_t T = tokens.shape()[0];
    Tensor positions = tg::cast(tg::iota({T}, 0, DType::I32, tokens.device()), DType::F32);
    Tensor heads = tg::transpose(tg::reshape(tokens, {T, 4, 16}), 0, 1);  // [4, T, 16]
    Tensor grouped = tg::reshape(heads, {1, 4 * T, 16});
    Tensor last = tg::slice(tokens, 0, T - 1);  // [1, 64]
    return std::vector<Tensor>{positions, grouped, last};
  };
  SymbolicInference r = infer(fn, {{10, 64}}, {{0, 0, tg::Dim("T", 1, 4096)}});
  ASSERT_TRUE(r.trace) << r.whyNot;
  const std::string text = r.trace->str();
  EXPECT_TRUE(contains(text, "result 0: f32[T]"));
  EXPECT_TRUE(contains(text, "result 1: f32[1, 4*T, 16]"));
  EXPECT_TRUE(contains(text, "result 2: f32[1, 64]"));
  EXPECT_TRUE(contains(text, "starts [T - 1, 0]"));
  EXPECT_TRUE(contains(text, "limits [T, 64]"));
  EXPECT_EQ(r.traces, 4);  // the call's, one probe, two checks
}

TEST(SymbolicTrace, AnIntegerScalarMadeFromASizeIsASize) {
  // The decoder's `pos + T`: a splat of an integer the size gives.
  Fn fn = [](const std::vector<Tensor>& a) {
    const int64_t T = a[0].shape()[0];
    return std::vector<Tensor>{a[1] + static_cast<int32_t>(T), a[1] + 3};
  };
  DynamicDims dims({{0, 0, tg::Dim("T", 1, 4096)}}, {});
  std::vector<tg::graph::TensorType> types = {{DType::I32, {10}}, {DType::I32, {}}};
  SymbolicInference r = tg::detail::inferSymbolicTrace(tg::detail::TraceRef(fn), types, tg::Device::CPU, dims,
                                                       dims.valuesOf(types, {}), {});
  ASSERT_TRUE(r.trace) << r.whyNot;
  EXPECT_TRUE(contains(r.trace->str(), "constant")) << r.trace->str();
  EXPECT_TRUE(contains(r.trace->str(), "value T")) << r.trace->str();
  int symbolicValues = 0, constantValues = 0;
  for (const tg::detail::SymbolicNode& n : r.trace->nodes)
    if (n.value) (n.value->isConstant() ? constantValues : symbolicValues) += 1;
  EXPECT_EQ(symbolicValues, 1);
  EXPECT_EQ(constantValues, 1);  // the 3
}

TEST(SymbolicTrace, TheSymbolicIRHasDynamicDimsAndVerifies) {
  Tensor w = tg::randn({16, 32}, DType::F32, 1, tg::Device::CPU);
  Fn fn = [&](const std::vector<Tensor>& a) {
    const int64_t B = a[0].shape()[0], S = a[0].shape()[1];
    Tensor h = tg::reshape(tg::layer_norm(a[0]), {B * S, 16});
    return std::vector<Tensor>{tg::softmax(tg::matmul(h, w) * 0.25f, -1)};
  };
  SymbolicInference r = infer(fn, {{3, 5, 16}}, {{0, 0, kBatch}, {0, 1, kSeq}});
  ASSERT_TRUE(r.trace) << r.whyNot;
  std::string whyNot;
  const std::string ir = tg::detail::importedSymbolicIr(*r.trace, "block", whyNot);
  ASSERT_FALSE(ir.empty()) << whyNot;
  EXPECT_TRUE(contains(ir, "tg.symbols = [#tg.symbol<\"batch\", 2, 256>, #tg.symbol<\"seq\", 2, 8192>]"));
  EXPECT_TRUE(contains(ir, "%arg0: tensor<?x?x16xf32, #tg.sizes<[batch, seq, 16]>>"));
  EXPECT_TRUE(contains(ir, "tensor<?x16xf32, #tg.sizes<[batch*seq, 16]>>, tensor<16x32xf32> -> "
                           "tensor<?x32xf32, #tg.sizes<[batch*seq, 32]>>"));
  // The scale, a splat over symbolic dims, is one element broadcast.
  EXPECT_TRUE(contains(ir, "tg.broadcast"));
}

TEST(SymbolicTrace, SliceBoundsThatDependOnADimAreSizesInTheIR) {
  Fn slice = [](const std::vector<Tensor>& a) {
    const int64_t T = a[0].shape()[0];
    // The first half of the columns (the rows' bound is T), and the last row.
    return std::vector<Tensor>{tg::slice(a[0], 1, 0, 4), tg::slice(a[0], 0, T - 1)};
  };
  SymbolicInference r = infer(slice, {{10, 8}}, {{0, 0, tg::Dim("T", 1, 4096)}});
  ASSERT_TRUE(r.trace) << r.whyNot;
  std::string whyNot;
  const std::string ir = tg::detail::importedSymbolicIr(*r.trace, "f", whyNot);
  ASSERT_FALSE(ir.empty()) << whyNot;
  EXPECT_TRUE(contains(ir, "starts = [0, 0] limits = [T, 4] steps = [1, 1] : tensor<?x8xf32, #tg.sizes<[T, 8]>> to "
                           "tensor<?x4xf32, #tg.sizes<[T, 4]>>"));
  EXPECT_TRUE(contains(ir, "starts = [T - 1, 0] limits = [T, 8] steps = [1, 1] : tensor<?x8xf32, #tg.sizes<[T, 8]>> "
                           "to tensor<1x8xf32>"));
}

TEST(SymbolicTrace, AConstantThatIsASizeIsATgSize) {
  Fn fn = [](const std::vector<Tensor>& a) {
    return std::vector<Tensor>{a[1] + static_cast<int32_t>(a[0].shape()[0])};  // pos + T
  };
  DynamicDims dims({{0, 0, tg::Dim("T", 1, 4096)}}, {});
  std::vector<tg::graph::TensorType> types = {{DType::F32, {10}}, {DType::I32, {}}};
  SymbolicInference r = tg::detail::inferSymbolicTrace(tg::detail::TraceRef(fn), types, tg::Device::CPU, dims,
                                                       dims.valuesOf(types, {}), {});
  ASSERT_TRUE(r.trace) << r.whyNot;
  std::string whyNot;
  const std::string ir = tg::detail::importedSymbolicIr(*r.trace, "f", whyNot);
  ASSERT_FALSE(ir.empty()) << whyNot;
  EXPECT_TRUE(contains(ir, "tg.size #tg.sizes<[T]> as tensor<i32>"));
}

TEST(SymbolicTrace, ADivisionOfASizeIsNamedWithItsOp) {
  Fn fn = [](const std::vector<Tensor>& a) {
    const int64_t T = a[0].shape()[0];
    return std::vector<Tensor>{tg::reshape(a[0], {T / 2, 2 * 8})};  // [T, 8] -> [T/2, 16]
  };
  SymbolicInference r = infer(fn, {{64, 8}}, {{0, 0, tg::Dim("T", 2, 4096)}});
  // Odd sizes cannot be reshaped to T / 2 rows: a probe fails, or the fit misses.
  ASSERT_FALSE(r.trace);
  EXPECT_TRUE(contains(r.whyNot, "reshape")) << r.whyNot;
}

TEST(SymbolicTrace, ADivisionThatAlwaysFitsIsCaughtByTheChecks) {
  Fn fn = [](const std::vector<Tensor>& a) {
    const int64_t T = a[0].shape()[0];
    return std::vector<Tensor>{tg::slice(a[0], 0, 0, T / 4 + 1)};  // a window of T / 4 + 1 rows
  };
  SymbolicInference r = infer(fn, {{64, 8}}, {{0, 0, tg::Dim("T", 2, 4096)}});
  ASSERT_FALSE(r.trace);
  EXPECT_TRUE(contains(r.whyNot, "slice")) << r.whyNot;
  EXPECT_TRUE(contains(r.whyNot, "T = 64")) << r.whyNot;
  EXPECT_TRUE(contains(r.whyNot, "division")) << r.whyNot;
}

TEST(SymbolicTrace, AGraphThatChangesWithASizeIsNamed) {
  Fn fn = [](const std::vector<Tensor>& a) {
    Tensor y = a[0] * 2.0f;
    if (a[0].shape()[0] > 40) y = tg::relu(y);  // host control flow on a size
    return std::vector<Tensor>{y};
  };
  SymbolicInference r = infer(fn, {{32, 8}}, {{0, 0, tg::Dim("T", 2, 4096)}});
  ASSERT_FALSE(r.trace);
  EXPECT_TRUE(contains(r.whyNot, "the graph is not the same")) << r.whyNot;
}

TEST(SymbolicTrace, AConstantMadeFromASizeIsNamed) {
  Fn fn = [](const std::vector<Tensor>& a) {
    const float inv = 1.0f / static_cast<float>(a[0].shape()[0]);
    return std::vector<Tensor>{a[0] * inv};
  };
  SymbolicInference r = infer(fn, {{32, 8}}, {{0, 0, tg::Dim("T", 2, 4096)}});
  ASSERT_FALSE(r.trace);
  EXPECT_TRUE(contains(r.whyNot, "constant")) << r.whyNot;
}

TEST(SymbolicTrace, AGraphBreakStopsTheInference) {
  Fn fn = [](const std::vector<Tensor>& a) {
    const float first = tg::sum(a[0]).item<float>();
    return std::vector<Tensor>{a[0] + first};
  };
  SymbolicInference r = infer(fn, {{32, 8}}, {{0, 0, tg::Dim("T", 2, 4096)}});
  ASSERT_FALSE(r.trace);
  EXPECT_TRUE(contains(r.whyNot, "graph break")) << r.whyNot;
  EXPECT_TRUE(r.graphBreak);  // (the jit fits the segments from the calls instead)
}

TEST(SymbolicTrace, TheLambdasOwnExceptionAtAProbeSizeIsAReasonNotAFailure) {
  Fn fn = [](const std::vector<Tensor>& a) {
    if (a[0].shape()[0] > 100) throw std::runtime_error("too many rows for this model");
    return std::vector<Tensor>{a[0] * 2.0f};
  };
  SymbolicInference r = infer(fn, {{32, 8}}, {{0, 0, tg::Dim("T", 2, 4096)}});
  ASSERT_FALSE(r.trace);
  EXPECT_TRUE(contains(r.whyNot, "the lambda threw: too many rows for this model")) << r.whyNot;
}

TEST(SymbolicTrace, ASizeOfOneAndANarrowRangeStayFixed) {
  Fn fn = [](const std::vector<Tensor>& a) { return std::vector<Tensor>{tg::exp(a[0]) + a[1]}; };
  // batch is 1 in this call (a size of 1 broadcasts: a variant of its own); heads has three
  // sizes from 2, too few to fit, so each is its own.
  SymbolicInference r = infer(fn, {{1, 3, 16}, {1, 3, 16}},
                              {{0, 0, kBatch}, {1, 0, kBatch}, {0, 1, tg::Dim("heads", 1, 4)}, {1, 1, tg::Dim("heads", 1, 4)}});
  ASSERT_TRUE(r.trace) << r.whyNot;
  EXPECT_TRUE(r.trace->fixed[0]);
  EXPECT_TRUE(r.trace->fixed[1]);
  EXPECT_TRUE(contains(r.trace->str(), "result 0: f32[1, 3, 16]"));
  EXPECT_EQ(r.traces, 1);
  // The IR of this trace holds at those sizes only: its symbols' ranges are the call's sizes.
  std::string whyNot;
  const std::string ir = tg::detail::importedSymbolicIr(*r.trace, "f", whyNot);
  ASSERT_FALSE(ir.empty()) << whyNot;
  EXPECT_TRUE(contains(ir, "tg.symbols = [#tg.symbol<\"batch\", 1, 1>, #tg.symbol<\"heads\", 3, 3>]"));
}

TEST(SymbolicTrace, DimsOfOneSymbolAreKnownEqual) {
  // x [B, 16] + y [B, 16]: one symbol, so every probe keeps them equal and the sum traces.
  Fn fn = [](const std::vector<Tensor>& a) { return std::vector<Tensor>{a[0] + a[1]}; };
  SymbolicInference r = infer(fn, {{8, 16}, {8, 16}}, {{0, 0, kBatch}, {1, 0, kBatch}});
  ASSERT_TRUE(r.trace) << r.whyNot;
  EXPECT_TRUE(contains(r.trace->str(), "result 0: f32[batch, 16]"));
  // Two symbols the lambda needs equal: a probe that moves one alone fails at the add, and
  // moved together they trace: one size, over the overlap of their ranges.
  SymbolicInference apart = infer(fn, {{8, 16}, {8, 16}}, {{0, 0, kBatch}, {1, 0, tg::Dim("rows", 1, 100)}});
  ASSERT_TRUE(apart.trace) << apart.whyNot;
  EXPECT_EQ(apart.trace->sameAs, (std::vector<int>{-1, 0}));
  EXPECT_EQ(apart.trace->min, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(apart.trace->max, (std::vector<int64_t>{100, 100}));
  EXPECT_TRUE(contains(apart.trace->str(), "rows = batch: the lambda needs them equal")) << apart.trace->str();
  EXPECT_TRUE(contains(apart.trace->str(), "result 0: f32[batch, 16]"));
  // Of other sizes in the call, they cannot be one: the lambda fails at the call's own sizes.
  SymbolicInference unequal = infer(fn, {{8, 16}, {9, 16}}, {{0, 0, kBatch}, {1, 0, tg::Dim("rows", 1, 100)}});
  ASSERT_FALSE(unequal.trace);
  EXPECT_TRUE(contains(unequal.whyNot, "traced with batch = 8, rows = 9")) << unequal.whyNot;
  // Three dims, two of them needed equal and a third free: only the pair is merged.
  Fn three = [](const std::vector<Tensor>& a) {
    return std::vector<Tensor>{a[0] + a[1], tg::sum(a[2], {0}, true) * 2.0f};
  };
  SymbolicInference pair = infer(three, {{8, 16}, {8, 16}, {8, 16}},
                                 {{0, 0, kBatch}, {1, 0, tg::Dim("rows", 1, 100)}, {2, 0, tg::Dim("other", 1, 64)}});
  ASSERT_TRUE(pair.trace) << pair.whyNot;
  EXPECT_EQ(pair.trace->sameAs, (std::vector<int>{-1, 0, -1}));
}

// The options and each call's sizes, through tg::jit.

TEST(DynamicDims, BadOptionsAreErrorsAtTheJitLine) {
  auto fn = [](const Tensor& x) { return x + 1.0f; };
  auto makeWith = [&](std::vector<tg::DynamicDim> d) { return tg::jit(fn, tg::JitOptions{.dynamic = std::move(d)}); };
  try {
    makeWith({{0, 0, tg::Dim("2batch", 1, 8)}});
    FAIL() << "no error";
  } catch (const tg::Error& e) {
    EXPECT_TRUE(contains(e.what(), "letters, digits and '_'"));
    EXPECT_TRUE(contains(e.what(), "SymbolicTraceTest.cpp"));
  }
  EXPECT_THROW(makeWith({{0, 0, tg::Dim("b", 0, 8)}}), tg::Error);
  EXPECT_THROW(makeWith({{0, 0, tg::Dim("b", 9, 8)}}), tg::Error);
  EXPECT_THROW(makeWith({{-1, 0, tg::Dim("b", 1, 8)}}), tg::Error);
  EXPECT_THROW(makeWith({{0, 0, tg::Dim("b", 1, 8)}, {0, 1, tg::Dim("b", 1, 9)}}), tg::Error);
  EXPECT_THROW(makeWith({{0, 0, tg::Dim("b", 1, 8)}, {0, 0, tg::Dim("c", 1, 8)}}), tg::Error);
  EXPECT_NO_THROW(makeWith({{0, -1, tg::Dim("b", 1, 8)}, {0, 0, tg::Dim("c", 1, 8)}}));
}

TEST(DynamicDims, CallsOutsideARangeOrWithUnequalDimsAreErrorsAtTheCall) {
  auto f = tg::jit([](const Tensor& x, const Tensor& y) { return x + y; },
                   tg::JitOptions{.dynamic = {{0, 0, tg::Dim("n", 2, 64)}, {1, 0, tg::Dim("n", 2, 64)}}});
  Tensor a = tg::randn({8}, DType::F32, 1, tg::Device::CPU), b = tg::randn({8}, DType::F32, 2, tg::Device::CPU);
  Tensor c = tg::randn({16}, DType::F32, 3, tg::Device::CPU), big = tg::randn({65}, DType::F32, 4, tg::Device::CPU);
  EXPECT_NO_THROW(f(a, b));
  try {
    f(big, big);
    FAIL() << "no error";
  } catch (const tg::Error& e) {
    EXPECT_TRUE(contains(e.what(), "size 65, outside Dim 'n' [2, 64]"));
    EXPECT_TRUE(contains(e.what(), "SymbolicTraceTest.cpp"));
  }
  try {
    f(a, c);
    FAIL() << "no error";
  } catch (const tg::Error& e) {
    EXPECT_TRUE(contains(e.what(), "Dim 'n' is 8 at argument 0 dim 0 but 16 at argument 1 dim 0"));
  }
  auto g = tg::jit([](const Tensor& x) { return x * 2.0f; }, tg::JitOptions{.dynamic = {{0, 1, tg::Dim("n", 1, 64)}}});
  EXPECT_THROW(g(a), tg::Error);  // a has no dim 1
}

// Two Dims the lambda needs equal are compiled as one size, and each call checks it: a call
// where they differ is not served by that graph (the lambda's own error, at the call).
TEST(DynamicDims, DimsTheLambdaNeedsEqualAreCheckedAtEachCall) {
  auto f = tg::jit([](const Tensor& x, const Tensor& y) { return tg::tanh(x) * y; },
                   tg::JitOptions{.dynamic = {{0, 0, tg::Dim("a", 1, 256)}, {1, 0, tg::Dim("b", 1, 512)}}});
  int seed = 1;
  // More sizes than the jit traces again to check (8), so that the call below with unequal
  // sizes meets the check of equal dims itself.
  for (int64_t n : {8, 37, 2, 256, 3, 5, 11, 64, 100, 13, 8}) {
    Tensor x = tg::randn({n, 16}, DType::F32, seed++, tg::Device::CPU);
    Tensor y = tg::randn({n, 16}, DType::F32, seed++, tg::Device::CPU);
    EXPECT_EQ(f(x, y).to_vector<float>(), (tg::tanh(x) * y).to_vector<float>()) << "n = " << n;
  }
  tg::JitReport r = f.report();
  ASSERT_EQ(r.graphs.size(), 1u) << r.str();
  EXPECT_TRUE(r.recompiles.empty()) << r.str();
  ASSERT_EQ(r.symbolicSizes.size(), 1u);
  EXPECT_TRUE(contains(r.symbolicSizes[0], "b = a: the lambda needs them equal (checked at each call)"))
      << r.symbolicSizes[0];
  Tensor x = tg::randn({8, 16}, DType::F32, 40, tg::Device::CPU), y = tg::randn({9, 16}, DType::F32, 41, tg::Device::CPU);
  try {
    (void)f(x, y);
    FAIL() << "no error for a = 8, b = 9";
  } catch (const tg::Error& e) {
    EXPECT_TRUE(contains(e.what(), "SymbolicTraceTest.cpp")) << e.what();
  }
  // And a size of the overlap's outside: b up to 512 but a only up to 256.
  Tensor big = tg::randn({300, 16}, DType::F32, 42, tg::Device::CPU);
  EXPECT_THROW((void)f(big, big), tg::Error);
}

TEST(DynamicDims, TheReportGivesTheSymbolsAndTheSizesOfEachSignature) {
  auto f = tg::jit([](const Tensor& x) { return tg::softmax(x * 0.5f, -1); },
                   tg::JitOptions{.dynamic = {{0, 0, tg::Dim("rows", 1, 1024)}}});
  Tensor x = tg::randn({12, 64}, DType::F32, 1, tg::Device::CPU);
  std::vector<float> got = f(x).to_vector<float>();
  std::vector<float> want = tg::softmax(x * 0.5f, -1).to_vector<float>();
  EXPECT_EQ(got, want);
  tg::JitReport r = f.report();
  EXPECT_EQ(r.dynamicDims, "rows in [1, 1024] (argument 0 dim 0)");
  ASSERT_EQ(r.symbolicSizes.size(), 1u);
  EXPECT_TRUE(contains(r.symbolicSizes[0], "at rows = 12"));
  EXPECT_TRUE(contains(r.symbolicSizes[0], "result 0: f32[rows, 64]"));
  EXPECT_TRUE(contains(r.str(), "dynamic dims: rows in [1, 1024]"));
  EXPECT_TRUE(contains(r.symbolicSizes[0], "compiled once for every size in the ranges (graph 0)"))
      << r.symbolicSizes[0];
}

// One compile serves every size in the range (from 2; a size of 1 is a variant of its own), on
// the CPU through the interpreter at each call's sizes: the jit's half of symbolic plans.
TEST(DynamicDims, OneCompileServesEverySizeInTheRange) {
  auto f = tg::jit([](const Tensor& x, const Tensor& w) { return tg::softmax(x * 0.5f + w, -1); },
                   tg::JitOptions{.dynamic = {{0, 0, tg::Dim("rows", 1, 1024)}}});
  Tensor w = tg::randn({64}, DType::F32, 7, tg::Device::CPU);
  int seed = 11;
  for (int64_t rows : {12, 5, 97, 2, 1024, 12, 1, 1, 3}) {
    Tensor x = tg::randn({rows, 64}, DType::F32, seed++, tg::Device::CPU);
    Tensor got = f(x, w);
    EXPECT_EQ(got.shape(), (tg::Shape{rows, 64}));
    EXPECT_EQ(got.to_vector<float>(), tg::softmax(x * 0.5f + w, -1).to_vector<float>()) << "rows = " << rows;
  }
  tg::JitReport r = f.report();
  ASSERT_EQ(r.graphs.size(), 2u) << r.str();  // rows from 2, and rows = 1
  EXPECT_EQ(r.graphs[0].symbols, "rows in [2, 1024]") << r.str();
  EXPECT_EQ(r.graphs[0].runs, 7u);
  EXPECT_EQ(r.graphs[0].lastSizes, "rows = 3");
  EXPECT_EQ(r.graphs[1].symbols, "rows = 1") << r.str();
  ASSERT_EQ(r.recompiles.size(), 1u) << r.str();
  EXPECT_TRUE(contains(r.recompiles[0], "sizes rows = 1: no graph compiled before serves them")) << r.recompiles[0];
  EXPECT_EQ(r.replays, 7u);
  EXPECT_TRUE(contains(r.str(), "compiled for sizes: rows in [2, 1024]")) << r.str();
  // Out of range: an error at the call, as before.
  EXPECT_THROW(f(tg::randn({1025, 64}, DType::F32, 1, tg::Device::CPU), w), tg::Error);
}

// C++ control flow on a size that the inference's sizes do not meet: the first sizes a
// compiled graph serves are traced again, and a graph that differs there is an error at the
// call, never the other graph's answer.
TEST(DynamicDims, ALambdaThatBranchesOnASizeIsCaughtAtTheFirstSizesItMeets) {
  auto f = tg::jit([](const Tensor& x) { return x.shape()[0] == 37 ? x * 2.0f : x * 3.0f; },
                   tg::JitOptions{.dynamic = {{0, 0, tg::Dim("rows", 1, 64)}}});
  Tensor a = tg::randn({5, 4}, DType::F32, 1, tg::Device::CPU);
  EXPECT_EQ(f(a).to_vector<float>(), (a * 3.0f).to_vector<float>());
  Tensor b = tg::randn({37, 4}, DType::F32, 2, tg::Device::CPU);
  try {
    f(b);
    FAIL() << "no error";
  } catch (const tg::Error& e) {
    // (2 and 3 are integers, so the constant is a size slot: its value differs.)
    EXPECT_TRUE(contains(e.what(), "dynamic dims: the value 0 of %1 constant")) << e.what();
    EXPECT_TRUE(contains(e.what(), "is 2 at rows = 37, not 3 as compiled for the ranges")) << e.what();
    EXPECT_TRUE(contains(e.what(), "SymbolicTraceTest.cpp")) << e.what();
  }
  // The sizes it does serve still run, and 37 stays an error.
  Tensor c = tg::randn({9, 4}, DType::F32, 3, tg::Device::CPU);
  EXPECT_EQ(f(c).to_vector<float>(), (c * 3.0f).to_vector<float>());
  EXPECT_THROW(f(b), tg::Error);
  // Another op at one size: the graph's structure differs.
  auto h = tg::jit([](const Tensor& x) { return x.shape()[0] == 37 ? tg::exp(x) : tg::tanh(x); },
                   tg::JitOptions{.dynamic = {{0, 0, tg::Dim("rows", 1, 64)}}});
  (void)h(a);
  try {
    (void)h(b);
    FAIL() << "no error";
  } catch (const tg::Error& e) {
    EXPECT_TRUE(contains(e.what(), "dynamic dims: the graph at rows = 37 is not the one compiled for the ranges"))
        << e.what();
  }
  // A size the probes (5, 6, the top and an odd size near the middle) do not meet: its extent
  // differs from the polynomial there.
  auto g = tg::jit([](const Tensor& x) { return tg::slice(x, 0, 0, x.shape()[0] == 37 ? 36 : x.shape()[0]); },
                   tg::JitOptions{.dynamic = {{0, 0, tg::Dim("rows", 1, 64)}}});
  (void)g(a);
  tg::JitReport r = g.report();
  ASSERT_EQ(r.graphs.size(), 1u) << r.str();
  ASSERT_EQ(r.graphs[0].symbols, "rows in [2, 64]") << r.str();
  try {
    (void)g(b);
    FAIL() << "no error at rows = 37";
  } catch (const tg::Error& e) {
    EXPECT_TRUE(contains(e.what(), "is 36 at rows = 37, not rows as compiled for the ranges")) << e.what();
  }
}

// A graph whose sizes the inference cannot follow (a float computed from a size) is compiled
// per signature, and the report says why.
TEST(DynamicDims, WhatCannotBeCompiledForTheRangeIsCompiledPerSignature) {
  auto f = tg::jit([](const Tensor& x) { return x * (1.0f / static_cast<float>(x.shape()[0])); },
                   tg::JitOptions{.dynamic = {{0, 0, tg::Dim("rows", 1, 64)}}});
  for (int64_t rows : {5, 9, 5}) {
    Tensor x = tg::randn({rows, 4}, DType::F32, 1, tg::Device::CPU);
    EXPECT_EQ(f(x).to_vector<float>(), (x * (1.0f / static_cast<float>(rows))).to_vector<float>());
  }
  tg::JitReport r = f.report();
  EXPECT_EQ(r.graphs.size(), 2u) << r.str();
  ASSERT_EQ(r.symbolicSizes.size(), 2u);
  EXPECT_TRUE(contains(r.symbolicSizes[0], "no symbolic sizes")) << r.symbolicSizes[0];
  EXPECT_TRUE(r.graphs[0].symbols.empty());
}

}  // namespace
