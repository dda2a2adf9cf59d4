//===- SegmentFitTest.cpp - Graph segments over dynamic dims, fitted from the calls ===//
//
// A function with dynamic dims and a graph break cannot be probed past the break, so its
// segments are fitted from the sizes of the calls that traced them (SegmentFit.h) and then
// compiled once for the ranges (issue 18). Checked here: the fit itself (exact polynomials,
// refusals), and through tg::jit on the CPU that every call's result is the eager result
// bit for bit while the graph count stops growing, including segments whose structure depends
// on the data and sizes that depend on the data (a fit never serves a call whose trace it does
// not give).
//
//===----------------------------------------------------------------------===//
#include "tg/Frontend/SegmentFit.h"
#include "tg/tg.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

using tg::DType;
using tg::Tensor;
using tg::detail::fitObservedSizes;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::vector<std::string> names = {"b", "s", "h"};

TEST(SegmentFit, AffineAndProductSizesAreFittedExactly) {
  // Slots: 2s + 3, b*s*64, 7, b - 1; samples at sizes (b, s, h = 4).
  std::vector<std::vector<int64_t>> values, slots;
  for (auto [b, s] : std::vector<std::pair<int64_t, int64_t>>{{2, 5}, {3, 5}, {2, 9}, {8, 100}, {5, 7}, {4, 4}}) {
    values.push_back({b, s, 4});
    slots.push_back({2 * s + 3, b * s * 64, 7, b - 1});
  }
  std::string why;
  auto fit = fitObservedSizes(values, slots, {0, 1}, why);
  ASSERT_TRUE(fit) << why;
  ASSERT_EQ(fit->size(), 4u);
  EXPECT_EQ((*fit)[0].str(names), (tg::SizeExpr::symbol(1) * 2 + 3).str(names));
  EXPECT_EQ((*fit)[1].str(names), (tg::SizeExpr::symbol(0) * tg::SizeExpr::symbol(1) * 64).str(names));
  EXPECT_EQ((*fit)[2].str(names), "7");
  EXPECT_EQ((*fit)[3].str(names), (tg::SizeExpr::symbol(0) - 1).str(names));
  // At sizes no sample had.
  const std::vector<int64_t> at = {61, 4093, 4};
  EXPECT_EQ((*fit)[1].evaluate(at), 61 * 4093 * 64);
}

TEST(SegmentFit, SizesNoPolynomialGivesAreRefused) {
  std::vector<std::vector<int64_t>> values, slots;
  for (int64_t s : {4, 6, 10, 30}) {
    values.push_back({2, s, 4});
    slots.push_back({s / 2 + (s % 4 == 2 ? 1 : 0)});  // 2, 4, 6, 15: no line through all four
  }
  std::string why;
  EXPECT_FALSE(fitObservedSizes(values, slots, {1}, why));
  EXPECT_TRUE(contains(why, "no polynomial of degree one")) << why;
}

TEST(SegmentFit, TooFewOrInseparableSamplesAreRefused) {
  std::string why;
  std::vector<std::vector<int64_t>> values = {{2, 5, 4}, {3, 6, 4}}, slots = {{1}, {2}};
  EXPECT_FALSE(fitObservedSizes(values, slots, {0}, why));
  EXPECT_TRUE(contains(why, "2 sample(s) of 3 needed")) << why;
  // b and s always move together: b*s, b and s cannot be told apart.
  values = {{2, 2, 4}, {3, 3, 4}, {4, 4, 4}, {5, 5, 4}, {6, 6, 4}};
  slots = {{4}, {9}, {16}, {25}, {36}};
  EXPECT_FALSE(fitObservedSizes(values, slots, {0, 1}, why));
  EXPECT_TRUE(contains(why, "do not separate")) << why;
}

Tensor segmentedReference(const Tensor& x) {
  Tensor y = tg::tanh(x) * 2.0f;
  const float m = tg::sum(y).item<float>();
  Tensor z = m > 0 ? y * 3.0f + 1.0f : y - 1.0f;
  return tg::softmax(z, -1);
}

// A break in the middle (a sum read on the host, whose sign picks the next ops): after a few
// sizes, each segment structure compiles once for the range, and the calls after that compile
// nothing; every result is the eager one bit for bit.
TEST(DynamicDims, SegmentsBetweenGraphBreaksCompileOnceForTheRange) {
  auto f = tg::jit([](const Tensor& x) { return segmentedReference(x); },
                   tg::JitOptions{.dynamic = {{0, 0, tg::Dim("rows", 1, 512)}}});
  uint64_t seed = 40;
  size_t graphsAfterWarmUp = 0;
  const std::vector<int64_t> sizes = {5, 9, 17, 33, 64, 100, 257, 2, 3, 511, 512, 77, 1, 128, 13, 300, 7, 1};
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t rows = sizes[i];
    // Mostly positive sums, every third call a negative one: both structures of segment 1.
    Tensor x = tg::randn({rows, 16}, DType::F32, seed++, tg::Device::CPU) + (i % 3 == 2 ? -2.0f : 2.0f);
    const Tensor got = f(x);
    ASSERT_EQ(got.shape(), (tg::Shape{rows, 16}));
    EXPECT_EQ(got.to_vector<float>(), segmentedReference(x).to_vector<float>()) << "rows = " << rows;
    if (i == 11) graphsAfterWarmUp = f.report().graphs.size();
  }
  const tg::JitReport r = f.report();
  // The calls from the 12th compile nothing new but for rows = 1 (a size of 1 is held, so its
  // segments are compiled for it).
  EXPECT_LE(r.graphs.size(), graphsAfterWarmUp + 3) << r.str();
  size_t once = 0;
  for (const std::string& line : r.symbolicSizes)
    once += contains(line, "compiled once for every size in the ranges") ? 1 : 0;
  EXPECT_GE(once, 3u) << r.str();  // segment 0, and segment 1 with each sign
  EXPECT_TRUE(contains(r.str(), "rows in [2, 512]")) << r.str();
  EXPECT_EQ(r.breaks.size(), 1u);
}

// A size that depends on the data after the break (how many values are not NaN): linear in the
// rows for the first calls, so a fit compiles; a later call with NaNs does not give that trace,
// so it compiles its own segment and its result is still the eager one.
TEST(DynamicDims, AFittedSegmentNeverServesACallWhoseTraceItDoesNotGive) {
  auto reference = [](const Tensor& x) {
    const int64_t n = static_cast<int64_t>(tg::sum(tg::cast(tg::eq(x, x), DType::F32)).item<float>());
    return tg::slice(tg::reshape(x, {x.numel()}), 0, 0, n) * 2.0f;
  };
  auto f = tg::jit([&](const Tensor& x) { return reference(x); },
                   tg::JitOptions{.dynamic = {{0, 0, tg::Dim("rows", 1, 256)}}});
  uint64_t seed = 90;
  for (int64_t rows : {3, 5, 8, 13, 21, 34, 55, 89, 144, 30, 31, 32}) {
    Tensor x = tg::randn({rows, 4}, DType::F32, seed++, tg::Device::CPU);
    if (rows >= 30 && rows <= 32) {  // NaNs at the end: fewer values counted than rows * 4
      std::vector<float> v = x.to_vector<float>();
      for (int64_t k = 0; k < rows - 20; ++k) v[v.size() - 1 - static_cast<size_t>(k)] = NAN;
      x = tg::from_vector(v, {rows, 4});
    }
    const Tensor got = f(x), want = reference(x);
    ASSERT_EQ(got.shape(), want.shape()) << "rows = " << rows;
    EXPECT_EQ(got.to_vector<float>(), want.to_vector<float>()) << "rows = " << rows;
  }
  const tg::JitReport r = f.report();
  bool fitted = false;
  for (const std::string& line : r.symbolicSizes) fitted = fitted || contains(line, "compiled once for every size");
  EXPECT_TRUE(fitted) << r.str();
}

// A simulation's loop: each step a graph break (is it converged yet?), a data-dependent number
// of steps, over a dynamic batch and length. The step's segment is one structure at every size
// and iteration: fitted once (over both dims, which takes sizes that separate b, s and b*s),
// then every step of every later call runs it.
TEST(DynamicDims, ALoopWithABreakEachStepFitsItsStepOnce) {
  auto simulate = [](const Tensor& x) {
    Tensor u = x;
    for (int step = 0; step < 50; ++step) {
      u = u * 0.5f + tg::tanh(u) * 0.25f;
      if (tg::max(tg::abs(u)).item<float>() < 0.05f) break;
    }
    return tg::reshape(u, {u.shape()[0] * u.shape()[1]});
  };
  auto f = tg::jit(simulate, tg::JitOptions{.dynamic = {{0, 0, tg::Dim("b", 1, 64)}, {0, 1, tg::Dim("s", 1, 1024)}}});
  uint64_t seed = 300;
  size_t graphsBefore = 0;
  const std::vector<std::pair<int64_t, int64_t>> sizes = {{2, 8},  {3, 8},   {2, 9},  {4, 11}, {5, 3},
                                                          {7, 100}, {9, 17}, {64, 1024}, {13, 5}, {6, 6}};
  for (size_t i = 0; i < sizes.size(); ++i) {
    auto [b, sl] = sizes[i];
    Tensor x = tg::randn({b, sl}, DType::F32, seed++, tg::Device::CPU) * 3.0f;
    EXPECT_EQ(f(x).to_vector<float>(), simulate(x).to_vector<float>()) << b << " x " << sl;
    if (i == 6) graphsBefore = f.report().graphs.size();
  }
  const tg::JitReport r = f.report();
  EXPECT_EQ(r.graphs.size(), graphsBefore) << r.str();  // the last 3 calls compile nothing
  bool fitted = false;
  for (const std::string& line : r.symbolicSizes) fitted = fitted || contains(line, "compiled once for every size");
  EXPECT_TRUE(fitted) << r.str();
  EXPECT_TRUE(contains(r.str(), "b in [2, 64], s in [2, 1024]")) << r.str();
}

// Two Dims the lambda needs equal (x [a, 8] + y [b, 8]) vary together in every call: the fit
// takes b as a (SymbolicTrace::sameAs) instead of failing to tell them apart, and a call where
// they differ is the lambda's own shape error, as without dynamic dims.
TEST(DynamicDims, SegmentsOverTwoDimsTheCallsKeepEqualAreFittedAsOne) {
  auto fn = [](const Tensor& x, const Tensor& y) {
    Tensor t = tg::tanh(x) + y;
    const float m = tg::sum(t).item<float>();
    return t * (m > 0 ? 2.0f : 3.0f);
  };
  auto f = tg::jit(fn, tg::JitOptions{.dynamic = {{0, 0, tg::Dim("a", 1, 256)}, {1, 0, tg::Dim("b", 1, 256)}}});
  uint64_t seed = 500;
  size_t graphsBefore = 0;
  const std::vector<int64_t> rows = {3, 5, 9, 17, 33, 64, 100, 255};
  for (size_t i = 0; i < rows.size(); ++i) {
    Tensor x = tg::randn({rows[i], 8}, DType::F32, seed++, tg::Device::CPU) + 1.0f;
    Tensor y = tg::randn({rows[i], 8}, DType::F32, seed++, tg::Device::CPU);
    EXPECT_EQ(f(x, y).to_vector<float>(), fn(x, y).to_vector<float>()) << "rows = " << rows[i];
    if (i == 4) graphsBefore = f.report().graphs.size();
  }
  const tg::JitReport r = f.report();
  EXPECT_EQ(r.graphs.size(), graphsBefore) << r.str();  // from the sixth call on, nothing compiles
  bool fitted = false;
  for (const std::string& line : r.symbolicSizes) fitted = fitted || contains(line, "compiled once for every size");
  EXPECT_TRUE(fitted) << r.str();
  EXPECT_THROW(f(tg::randn({6, 8}, DType::F32, 1, tg::Device::CPU), tg::randn({7, 8}, DType::F32, 2, tg::Device::CPU)),
               tg::Error);
}

}  // namespace
