//===- BroadcastTest.cpp - numpy broadcasting through the public API on the CPU ===//
//
// tg::add, tg::mul, tg::maximum and tg::where on CPU tensors of broadcastable shapes, against a
// naive loop that computes each operand's broadcast index itself (dims aligned at the right,
// extent-1 dims repeated). Inputs are f32 (or i32 / bool) from a seeded std::mt19937 per test;
// every f32 result here is one correctly rounded operation, so the expected value is the
// double result rounded to f32 and the tolerance is 0. Then incompatible shapes: tg::Error
// naming both shapes, located at the line of the call.
//
//===----------------------------------------------------------------------===//
#include "tg/tg.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using tg::DType;
using tg::Device;
using tg::Shape;

int64_t numelOf(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

/// The flat index of the element of an operand of shape `in` that numpy broadcasting sends to
/// flat index `i` of the result shape `out`.
int64_t broadcastIndex(int64_t i, const Shape& out, const Shape& in) {
  const size_t offset = out.size() - in.size();
  std::vector<int64_t> outIdx(out.size());
  for (int64_t d = static_cast<int64_t>(out.size()) - 1; d >= 0; --d) {
    outIdx[d] = i % out[d];
    i /= out[d];
  }
  int64_t flat = 0;
  for (size_t d = 0; d < in.size(); ++d) {
    int64_t idx = in[d] == 1 ? 0 : outIdx[d + offset];
    flat = flat * in[d] + idx;
  }
  return flat;
}

/// Uniform f32 values in [-10, 10], never all zero.
std::vector<float> randomFloats(std::mt19937& rng, int64_t n) {
  std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
  std::vector<float> v(n);
  do {
    for (float& x : v) x = dist(rng);
  } while (std::all_of(v.begin(), v.end(), [](float x) { return x == 0; }));
  return v;
}

struct ShapeCase {
  Shape a, b, out;
};

// Each pair in both orders.
const ShapeCase kCases[] = {
    {{3, 1, 5}, {4, 1}, {3, 4, 5}}, {{4, 1}, {3, 1, 5}, {3, 4, 5}}, {{}, {2, 3}, {2, 3}},
    {{2, 3}, {}, {2, 3}},           {{1}, {7}, {7}},                {{7}, {1}, {7}},
    {{2, 1}, {1, 2}, {2, 2}},       {{1, 2}, {2, 1}, {2, 2}},       {{2, 3}, {3}, {2, 3}},
};

std::string caseName(const ShapeCase& c) {
  return tg::format_shape(c.a) + " vs " + tg::format_shape(c.b);
}

TEST(Broadcast, AddMulMaximumF32) {
  // f32 add, mul and maximum: one rounding of the exact result, tolerance 0.
  std::mt19937 rng(2001);
  struct Op {
    const char* name;
    std::function<tg::Tensor(const tg::Tensor&, const tg::Tensor&)> apply;
    std::function<double(double, double)> naive;
  } ops[] = {
      {"add", [](const tg::Tensor& a, const tg::Tensor& b) { return tg::add(a, b); },
       [](double a, double b) { return a + b; }},
      {"mul", [](const tg::Tensor& a, const tg::Tensor& b) { return tg::mul(a, b); },
       [](double a, double b) { return a * b; }},
      {"maximum", [](const tg::Tensor& a, const tg::Tensor& b) { return tg::maximum(a, b); },
       [](double a, double b) { return std::max(a, b); }},
  };
  for (const Op& op : ops) {
    for (const ShapeCase& c : kCases) {
      SCOPED_TRACE(std::string(op.name) + " " + caseName(c));
      std::vector<float> a = randomFloats(rng, numelOf(c.a)), b = randomFloats(rng, numelOf(c.b));
      tg::Tensor ta = tg::from_vector(a, c.a, DType::F32, Device::CPU);
      tg::Tensor tb = tg::from_vector(b, c.b, DType::F32, Device::CPU);
      tg::Tensor r = op.apply(ta, tb);
      ASSERT_EQ(r.shape(), c.out);
      ASSERT_EQ(r.dtype(), DType::F32);
      std::vector<float> got = r.to_vector<float>();
      ASSERT_EQ(static_cast<int64_t>(got.size()), numelOf(c.out));
      for (int64_t i = 0; i < numelOf(c.out); ++i) {
        float expected = static_cast<float>(
            op.naive(a[broadcastIndex(i, c.out, c.a)], b[broadcastIndex(i, c.out, c.b)]));
        EXPECT_EQ(got[i], expected) << "element " << i;
      }
    }
  }
}

TEST(Broadcast, AddI32) {
  // i32 add of small values: exact.
  std::mt19937 rng(2002);
  std::uniform_int_distribution<int32_t> dist(-100000, 100000);
  for (const ShapeCase& c : kCases) {
    SCOPED_TRACE("add i32 " + caseName(c));
    std::vector<int32_t> a(numelOf(c.a)), b(numelOf(c.b));
    for (int32_t& x : a) x = dist(rng) | 1;  // odd: never zero
    for (int32_t& x : b) x = dist(rng) | 1;
    tg::Tensor r = tg::add(tg::from_vector(a, c.a, DType::I32, Device::CPU),
                           tg::from_vector(b, c.b, DType::I32, Device::CPU));
    ASSERT_EQ(r.shape(), c.out);
    ASSERT_EQ(r.dtype(), DType::I32);
    std::vector<int32_t> got = r.to_vector<int32_t>();
    for (int64_t i = 0; i < numelOf(c.out); ++i)
      EXPECT_EQ(got[i], a[broadcastIndex(i, c.out, c.a)] + b[broadcastIndex(i, c.out, c.b)])
          << "element " << i;
  }
}

TEST(Broadcast, WhereBroadcastsAllThree) {
  // cond ? a : b with three different shapes; the chosen f32 element is copied: tolerance 0.
  std::mt19937 rng(2003);
  struct Case {
    Shape cond, a, b, out;
  } cases[] = {
      {{3, 1, 5}, {4, 1}, {}, {3, 4, 5}},
      {{2, 1}, {1, 2}, {2, 2}, {2, 2}},
      {{1}, {7}, {1}, {7}},
      {{}, {2, 3}, {3}, {2, 3}},
      {{4, 1}, {3, 1, 5}, {5}, {3, 4, 5}},
  };
  std::bernoulli_distribution coin(0.5);
  for (const Case& c : cases) {
    SCOPED_TRACE("where " + tg::format_shape(c.cond) + ", " + tg::format_shape(c.a) + ", " +
                 tg::format_shape(c.b));
    std::vector<int32_t> cond(numelOf(c.cond));
    do {
      for (int32_t& x : cond) x = coin(rng) ? 1 : 0;
    } while (cond.size() > 1 && (std::count(cond.begin(), cond.end(), 1) == 0 ||
                                 std::count(cond.begin(), cond.end(), 0) == 0));
    std::vector<float> a = randomFloats(rng, numelOf(c.a)), b = randomFloats(rng, numelOf(c.b));
    tg::Tensor r = tg::where(tg::from_vector(cond, c.cond, DType::Bool, Device::CPU),
                             tg::from_vector(a, c.a, DType::F32, Device::CPU),
                             tg::from_vector(b, c.b, DType::F32, Device::CPU));
    ASSERT_EQ(r.shape(), c.out);
    ASSERT_EQ(r.dtype(), DType::F32);
    std::vector<float> got = r.to_vector<float>();
    for (int64_t i = 0; i < numelOf(c.out); ++i) {
      float expected = cond[broadcastIndex(i, c.out, c.cond)] != 0
                           ? a[broadcastIndex(i, c.out, c.a)]
                           : b[broadcastIndex(i, c.out, c.b)];
      EXPECT_EQ(got[i], expected) << "element " << i;
    }
  }
}

TEST(Broadcast, NaiveIndexItself) {
  // The naive index on a hand-worked case: [3, 1, 5] in [3, 4, 5], element (2, 3, 4) comes from
  // (2, 0, 4); [4, 1] in [3, 4, 5], the same element from (3, 0).
  EXPECT_EQ(broadcastIndex(2 * 20 + 3 * 5 + 4, {3, 4, 5}, {3, 1, 5}), 2 * 5 + 4);
  EXPECT_EQ(broadcastIndex(2 * 20 + 3 * 5 + 4, {3, 4, 5}, {4, 1}), 3);
  EXPECT_EQ(broadcastIndex(5, {2, 3}, {}), 0);
}

//===----------------------------------------------------------------------===//
// Incompatible shapes
//===----------------------------------------------------------------------===//

/// Checks a caught error: the message names both shapes, the location is this file at `line`.
void expectShapeError(const tg::Error& e, unsigned line, const std::vector<std::string>& shapes) {
  for (const std::string& s : shapes)
    EXPECT_NE(e.message().find(s), std::string::npos)
        << "message \"" << e.message() << "\" lacks " << s;
  EXPECT_EQ(e.location().line, line) << e.what();
  EXPECT_NE(e.location().file.find("BroadcastTest.cpp"), std::string::npos) << e.location().file;
}

tg::Tensor floats(std::mt19937& rng, const Shape& shape) {
  return tg::from_vector(randomFloats(rng, numelOf(shape)), shape, DType::F32, Device::CPU);
}

TEST(Broadcast, IncompatibleShapesThrowAtTheCallLine) {
  std::mt19937 rng(2004);
  tg::Tensor v3 = floats(rng, {3}), v4 = floats(rng, {4});
  tg::Tensor m23 = floats(rng, {2, 3}), m32 = floats(rng, {3, 2});
  unsigned line = 0;
  bool thrown = false;

  thrown = false;
  try {
    line = __LINE__, (void)tg::add(v3, v4);
  } catch (const tg::Error& e) {
    thrown = true;
    expectShapeError(e, line, {"[3]", "[4]"});
  }
  EXPECT_TRUE(thrown) << "add [3] + [4]";

  thrown = false;
  try {
    line = __LINE__, (void)tg::mul(m23, m32);
  } catch (const tg::Error& e) {
    thrown = true;
    expectShapeError(e, line, {"[2, 3]", "[3, 2]"});
  }
  EXPECT_TRUE(thrown) << "mul [2, 3] * [3, 2]";

  thrown = false;
  try {
    line = __LINE__, (void)tg::maximum(v4, v3);
  } catch (const tg::Error& e) {
    thrown = true;
    expectShapeError(e, line, {"[3]", "[4]"});
  }
  EXPECT_TRUE(thrown) << "maximum [4], [3]";

  thrown = false;
  try {
    line = __LINE__, (void)tg::add(m32, m23);
  } catch (const tg::Error& e) {
    thrown = true;
    expectShapeError(e, line, {"[2, 3]", "[3, 2]"});
  }
  EXPECT_TRUE(thrown) << "add [3, 2] + [2, 3]";
}

TEST(Broadcast, IncompatibleWhereThrowsAtTheCallLine) {
  std::mt19937 rng(2005);
  tg::Tensor cond3 = tg::from_vector(std::vector<int32_t>{1, 0, 1}, {3}, DType::Bool, Device::CPU);
  tg::Tensor cond23 =
      tg::from_vector(std::vector<int32_t>{1, 0, 1, 0, 0, 1}, {2, 3}, DType::Bool, Device::CPU);
  tg::Tensor v4 = floats(rng, {4}), m32 = floats(rng, {3, 2});
  unsigned line = 0;
  bool thrown = false;
  try {
    line = __LINE__, (void)tg::where(cond3, v4, v4);
  } catch (const tg::Error& e) {
    thrown = true;
    expectShapeError(e, line, {"[3]", "[4]"});
  }
  EXPECT_TRUE(thrown) << "where [3], [4], [4]";

  thrown = false;
  try {
    line = __LINE__, (void)tg::where(cond23, m32, m32);
  } catch (const tg::Error& e) {
    thrown = true;
    expectShapeError(e, line, {"[2, 3]", "[3, 2]"});
  }
  EXPECT_TRUE(thrown) << "where [2, 3], [3, 2], [3, 2]";
}

TEST(Broadcast, IncompatibleOperatorThrowsAtTheExpressionLine) {
  // Operators carry the line through tg::Located.
  std::mt19937 rng(2006);
  tg::Tensor v3 = floats(rng, {3}), v4 = floats(rng, {4});
  unsigned line = 0;
  bool thrown = false;
  try {
    line = __LINE__, (void)(v3 + v4);
  } catch (const tg::Error& e) {
    thrown = true;
    expectShapeError(e, line, {"[3]", "[4]"});
  }
  EXPECT_TRUE(thrown) << "[3] + [4]";
}

}  // namespace
