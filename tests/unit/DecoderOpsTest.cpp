//===- DecoderOpsTest.cpp - The ops a decoder needs, on the CPU -----------===//
//
// slice / split / chunk / narrow, iota / arange, clamp, argmax and the new reductions through
// the public API: eager on the CPU (the reference kernels), the same lambdas under tg::jit
// (traced, imported, canonicalized, interpreted), the errors a user gets, and the graph-cache
// key, which must tell apart any two ops whose attributes differ (two slices of one result type
// at different offsets would otherwise share a compiled program: a silently wrong answer).
//
//===----------------------------------------------------------------------===//
#include <tg/tg.h>

#include "tg/Frontend/Tracer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <tuple>

namespace {

using tg::DType;
using tg::Tensor;

std::vector<float> values(const Tensor& t) { return tg::cast(t, DType::F32).to_vector(); }

TEST(DecoderOps, SliceSplitChunkNarrowFollowPython) {
  // x[i, j] = 10 i + j.
  Tensor x = tg::iota({3, 10}, 0, DType::F32) * 10.0f + tg::iota({3, 10}, 1, DType::F32);
  EXPECT_EQ(values(tg::slice(x, 1, 2, 9, 3)), (std::vector<float>{2, 5, 8, 12, 15, 18, 22, 25, 28}));
  EXPECT_EQ(values(tg::slice(x, -1, -3)), (std::vector<float>{7, 8, 9, 17, 18, 19, 27, 28, 29}));
  EXPECT_EQ(tg::slice(x, 1, 8, 2).shape(), (tg::Shape{3, 0}));  // stop < start: empty
  EXPECT_EQ(tg::slice(x, 0, -100, 100).shape(), (tg::Shape{3, 10}));  // clamped
  EXPECT_EQ(values(tg::narrow(x, 0, 1, 1)), values(tg::slice(x, 0, 1, 2)));
  std::vector<Tensor> parts = tg::split(x, {2, 5, 3}, 1);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(values(parts[2]), (std::vector<float>{7, 8, 9, 17, 18, 19, 27, 28, 29}));
  std::vector<Tensor> chunks = tg::chunk(x, 4, 1);  // ceil(10 / 4) = 3: 3, 3, 3, 1
  ASSERT_EQ(chunks.size(), 4u);
  EXPECT_EQ(chunks[3].shape(), (tg::Shape{3, 1}));
  EXPECT_EQ(values(chunks[3]), (std::vector<float>{9, 19, 29}));
}

TEST(DecoderOps, ConcatJoinsAlongAnyAxis) {
  Tensor a = tg::from_vector({1, 2, 3, 4}, {2, 2}), b = tg::from_vector({5, 6}, {2, 1});
  EXPECT_EQ(values(tg::concat({a, b}, 1)), (std::vector<float>{1, 2, 5, 3, 4, 6}));
  EXPECT_EQ(values(tg::concat({a, tg::transpose(b, 0, 1)}, 0)), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(values(tg::concat({a})), values(a));
  EXPECT_EQ(tg::concat({a, tg::slice(a, 0, 0, 0)}).shape(), (tg::Shape{2, 2}));  // an empty operand
  auto f = tg::jit([](const Tensor& x, const Tensor& y) { return tg::concat({tg::neg(x), y * 2.0f}, -1) + 1.0f; });
  Tensor x = tg::randn({3, 4}, DType::F32, 21), y = tg::randn({3, 5}, DType::F32, 22);
  EXPECT_EQ(f(x, y).to_vector(), (tg::concat({tg::neg(x), y * 2.0f}, -1) + 1.0f).to_vector());
}

TEST(DecoderOps, IotaAndArange) {
  EXPECT_EQ(tg::arange(5).dtype(), DType::I32);
  EXPECT_EQ(tg::arange(5).to_vector(), (std::vector<float>{0, 1, 2, 3, 4}));
  EXPECT_EQ(values(tg::iota({2, 3}, 0, DType::BF16)), (std::vector<float>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(values(tg::iota({2, 3}, -1, DType::F16)), (std::vector<float>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(tg::arange(0).numel(), 0);
}

TEST(DecoderOps, ArgmaxOverRowsAndFlattened) {
  Tensor x = tg::from_vector({1, 7, 7, -2, 3, 0}, {2, 3});
  EXPECT_EQ(tg::argmax(x, 1).to_vector(), (std::vector<float>{1, 1}));  // a tie: the first
  EXPECT_EQ(tg::argmin(x, 0, true).shape(), (tg::Shape{1, 3}));
  EXPECT_EQ(tg::argmin(x, 0).to_vector(), (std::vector<float>{1, 1, 1}));
  EXPECT_EQ(tg::argmax(x).shape(), (tg::Shape{}));
  EXPECT_EQ(tg::argmax(x).to_vector(), (std::vector<float>{1}));
  EXPECT_EQ(tg::argmin(x).to_vector(), (std::vector<float>{3}));
  EXPECT_EQ(values(tg::min(x, {1})), (std::vector<float>{1, -2}));
  EXPECT_EQ(values(tg::prod(x, {0})), (std::vector<float>{-2, 21, 0}));
  EXPECT_EQ(values(tg::clamp(x, 0.5, 6)), (std::vector<float>{1, 6, 6, 0.5, 3, 0.5}));
}

/// A lambda of every new op: the jit's result must equal eager execution's, bit for bit (on
/// the CPU both are the reference kernels).
using Five = std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor>;
Five mixture(const Tensor& x, const Tensor& w) {
  std::vector<Tensor> qkv = tg::split(tg::matmul(x, w), {8, 8, 16}, -1);
  Tensor pos = tg::iota({6, 4}, 0, DType::F32);
  Tensor angle = pos * tg::exp2(tg::arange(4, DType::F32) * -0.5f);
  Tensor half1 = tg::slice(qkv[0], 1, 0, 4), half2 = tg::slice(qkv[0], 1, 4, 8);
  Tensor rotated = half1 * tg::cos(angle) - half2 * tg::sin(angle);
  Tensor gate = tg::silu(qkv[2]) * tg::erf(qkv[2]);
  Tensor rounded = tg::round(gate * 4.0f) + tg::floor(gate) - tg::ceil(gate) + tg::sign(gate);
  return {rotated, tg::clamp(rounded, -1.5, 2.5), tg::argmax(qkv[1], -1), tg::min(tg::log2(tg::abs(gate) + 1.0f), {0}),
          tg::prod(tg::slice(gate, 1, 0, 16, 5), {1})};
}

TEST(DecoderOps, JitMatchesEagerForEveryNewOp) {
  auto f = tg::jit(mixture);
  Tensor x = tg::randn({6, 5}, DType::F32, 11), w = tg::randn({5, 32}, DType::F32, 12);
  auto asVector = [](const Five& t) { return std::apply([](auto&... v) { return std::vector<Tensor>{v...}; }, t); };
  std::vector<Tensor> got = asVector(f(x, w)), want = asVector(mixture(x, w));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].shape(), want[i].shape()) << i;
    EXPECT_EQ(got[i].dtype(), want[i].dtype()) << i;
    EXPECT_EQ(got[i].to_vector(), want[i].to_vector()) << "result " << i;
  }
  // Not degenerate: the rotation and the argmax vary.
  std::vector<float> r = got[0].to_vector(), a = got[2].to_vector();
  EXPECT_NE(r[0], r[5]);
  EXPECT_NE(std::min_element(a.begin(), a.end()), std::max_element(a.begin(), a.end()));
}

TEST(DecoderOps, ErrorsNameTheOpAndTheProblem) {
  Tensor x = tg::randn({3, 4});
  auto expectError = [](const std::function<void()>& fn, const std::string& fragment) {
    try {
      fn();
      ADD_FAILURE() << "expected an error containing '" << fragment << "'";
    } catch (const tg::Error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
      EXPECT_NE(e.location().file.find("DecoderOpsTest.cpp"), std::string::npos) << e.what();
    }
  };
  expectError([&] { (void)tg::slice(x, 2, 0, 1); }, "axis 2 is out of range for rank 2");
  expectError([&] { (void)tg::slice(x, 1, 0, 4, 0); }, "step 0 must be at least 1");
  expectError([&] { (void)tg::split(x, {1, 2}, 1); }, "split sizes add up to 3, not the extent 4");
  expectError([&] { (void)tg::narrow(x, 0, 2, 2); }, "does not fit dim 0 of extent 3");
  expectError([&] { (void)tg::argmax(tg::randn({3, 0}), 1); }, "is empty: there is no index to return");
  expectError([&] { (void)tg::argmax(tg::randn({3, 0})); }, "is empty");
  expectError([&] { (void)tg::iota({3}, 1); }, "axis 1 is out of range for rank 1");
  expectError([&] { (void)tg::iota({3}, 0, DType::Bool); }, "needs a numeric result");
  expectError([&] { (void)tg::arange(-1); }, "must not be negative");
  expectError([&] { (void)tg::floor(tg::arange(3)); }, "needs a floating-point operand");
  expectError([&] { (void)tg::clamp(x, tg::randn({3, 4}, DType::BF16), x); }, "bounds must have the input's dtype");
  expectError([&] { (void)tg::clamp(x, tg::randn({5}), x); }, "do not broadcast");
  expectError([&] { (void)tg::concat({}); }, "needs at least one tensor");
  expectError([&] { (void)tg::concat({x, tg::randn({3, 5})}, 0); }, "differ in a dim other than the axis 0");
  expectError([&] { (void)tg::concat({x, tg::randn({3, 4}, DType::BF16)}, 1); }, "different dtypes");
  expectError([&] { (void)tg::prod(tg::from_vector({1, 0}, {2}, DType::Bool)); }, "cannot reduce a bool tensor");
}

TEST(DecoderOps, EveryAttributeIsPartOfTheGraphCacheKey) {
  // Each field of OpAttrs changed alone changes the key.
  using tg::graph::OpAttrs;
  auto keyOf = [](const OpAttrs& a) {
    std::string s;
    tg::graph::appendAttrsKey(s, a);
    return s;
  };
  const std::string base = keyOf(OpAttrs{});
  std::vector<std::function<void(OpAttrs&)>> changes = {
      [](OpAttrs& a) { a.axes = {1}; },         [](OpAttrs& a) { a.perm = {1, 0}; },
      [](OpAttrs& a) { a.dims = {0}; },         [](OpAttrs& a) { a.shape = {2}; },
      [](OpAttrs& a) { a.starts = {1}; },       [](OpAttrs& a) { a.limits = {3}; },
      [](OpAttrs& a) { a.steps = {2}; },        [](OpAttrs& a) { a.keepDims = true; },
      [](OpAttrs& a) { a.predicate = tg::graph::CmpPredicate::LT; },
      [](OpAttrs& a) { a.dtype = DType::BF16; }, [](OpAttrs& a) { a.gelu = tg::graph::GeluApprox::Erf; },
      [](OpAttrs& a) { a.axis = 1; },           [](OpAttrs& a) { a.epsilon = 1e-6; },
      [](OpAttrs& a) { a.hasWeight = true; },   [](OpAttrs& a) { a.hasBias = true; },
      [](OpAttrs& a) { a.transposeA = true; },  [](OpAttrs& a) { a.transposeB = true; },
      [](OpAttrs& a) { a.checkId = 7; },
  };
  for (size_t i = 0; i < changes.size(); ++i) {
    OpAttrs a;
    changes[i](a);
    EXPECT_NE(keyOf(a), base) << "change " << i;
  }
  // Adjacent lists cannot run together: [1][2] differs from [1, 2][].
  OpAttrs one, two;
  one.starts = {1};
  one.limits = {2};
  two.starts = {1, 2};
  EXPECT_NE(keyOf(one), keyOf(two));

  // Two slices of one result type at different offsets: different traces, different keys.
  tg::detail::Trace t1, t2;
  for (tg::detail::Trace* t : {&t1, &t2}) {
    tg::detail::TraceNode input;
    input.kind = tg::graph::OpKind::Input;
    input.type = {DType::F32, {8}};
    input.inputIndex = 0;
    t->nodes.push_back(input);
    t->numArgs = 1;
  }
  tg::detail::TraceNode slice;
  slice.kind = tg::graph::OpKind::Slice;
  slice.type = {DType::F32, {4}};
  slice.operands = {0};
  slice.attrs.starts = {0};
  slice.attrs.limits = {4};
  slice.attrs.steps = {1};
  t1.nodes.push_back(slice);
  slice.attrs.starts = {4};
  slice.attrs.limits = {8};
  t2.nodes.push_back(slice);
  t1.outputs = t2.outputs = {1};
  EXPECT_NE(tg::detail::structuralKey(t1), tg::detail::structuralKey(t2));
}

}  // namespace
