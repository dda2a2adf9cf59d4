//===- IndexingOpsTest.cpp - gather, dynamic_slice, dynamic_update_slice --===//
//
// On the CPU: values against hand-computed expectations (eager, the reference kernels) and
// under tg::jit; indices out of range: clamped, reported at the next sync point with the op's
// message and the user's line, once; the errors of bad arguments. The GPU suite runs the same
// ops through every kernel (tests/common/OpCases.cpp, tests/gpu/GpuTest.cpp).
//
//===----------------------------------------------------------------------===//
#include <tg/tg.h>

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace {

using tg::DType;
using tg::Tensor;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

/// An i32 tensor (a braced list given to from_vector is read as floats).
Tensor ids(std::vector<int32_t> values, tg::Shape shape) { return tg::from_vector(values, std::move(shape)); }

/// x[i, j] = 10 i + j, f32.
Tensor table(int64_t rows, int64_t cols) {
  return tg::iota({rows, cols}, 0, DType::F32) * 10.0f + tg::iota({rows, cols}, 1, DType::F32);
}

TEST(IndexingOps, GatherAlongAnyAxisWithAnyIndexShape) {
  Tensor t = table(5, 3);
  Tensor rows = tg::embedding(t, ids({4, 0, 4, 2}, {2, 2}));
  EXPECT_EQ(rows.shape(), (tg::Shape{2, 2, 3}));
  EXPECT_EQ(rows.to_vector(), (std::vector<float>{40, 41, 42, 0, 1, 2, 40, 41, 42, 20, 21, 22}));
  Tensor cols = tg::index_select(t, 1, ids({2, 2, 0}, {3}));
  EXPECT_EQ(cols.shape(), (tg::Shape{5, 3}));
  EXPECT_EQ(tg::slice(cols, 0, 1, 2).to_vector(), (std::vector<float>{12, 12, 10}));
  // bf16 and i32 tables, a scalar index.
  Tensor b = tg::gather(tg::cast(t, DType::BF16), 0, ids({3}, {}));
  EXPECT_EQ(b.shape(), (tg::Shape{3}));
  EXPECT_EQ(tg::cast(b, DType::F32).to_vector(), (std::vector<float>{30, 31, 32}));
  EXPECT_EQ(tg::gather(tg::arange(7), 0, ids({6, 1}, {2})).to_vector(), (std::vector<float>{6, 1}));
}

TEST(IndexingOps, DynamicSliceAndUpdateTakeTheStartFromATensor) {
  Tensor t = table(3, 6);
  Tensor w = tg::dynamic_slice(t, 1, ids({2}, {1}), 3);
  EXPECT_EQ(w.shape(), (tg::Shape{3, 3}));
  EXPECT_EQ(w.to_vector(), (std::vector<float>{2, 3, 4, 12, 13, 14, 22, 23, 24}));
  // An update of one row in the middle of dim 0 at position 4 of dim 1 (as a KV cache is written).
  Tensor u = tg::dynamic_update_slice(t, tg::full({1, 2}, -1.0), 1, ids({4}, {}), {1, 0});
  std::vector<float> want = t.to_vector();
  want[6 + 4] = want[6 + 5] = -1;
  EXPECT_EQ(u.to_vector(), want);
  EXPECT_EQ(t.to_vector()[10], 14.0f);  // the input is unchanged
}

TEST(IndexingOps, JitMatchesEager) {
  auto step = [](const Tensor& cache, const Tensor& k, const Tensor& pos, const Tensor& tokens, const Tensor& emb) {
    Tensor next = tg::dynamic_update_slice(cache, k * 2.0f, 1, pos);
    Tensor x = tg::embedding(emb, tokens);
    return std::tuple{next, tg::exp(tg::dynamic_slice(next, 1, pos, 2)), x + 1.0f};
  };
  auto f = tg::jit(step);
  Tensor cache = tg::randn({2, 8, 4}, DType::F32, 3), k = tg::randn({2, 2, 4}, DType::F32, 4);
  Tensor emb = tg::randn({9, 4}, DType::F32, 5), tokens = ids({8, 0, 3}, {3});
  for (int p : {0, 3, 6}) {
    Tensor pos = ids({p}, {});
    auto [a0, a1, a2] = f(cache, k, pos, tokens, emb);
    auto [b0, b1, b2] = step(cache, k, pos, tokens, emb);
    EXPECT_EQ(a0.to_vector(), b0.to_vector()) << p;
    EXPECT_EQ(a1.to_vector(), b1.to_vector()) << p;
    EXPECT_EQ(a2.to_vector(), b2.to_vector()) << p;
  }
  EXPECT_EQ(f.report().graphs.size(), 1u);  // one program for every position
  EXPECT_TRUE(f.report().recompiles.empty());
}

/// `fn` leaves an index failure that the next sync point raises, naming `message` and `line`;
/// the sync after it is clean. (`line` is read after `fn` ran, which sets it.)
void expectIndexFailure(const std::function<Tensor()>& fn, const std::string& message, const unsigned& line) {
  Tensor y = fn();  // no error yet: nothing waited
  try {
    (void)y.to_vector();
    ADD_FAILURE() << "expected '" << message << "' at the sync point";
  } catch (const tg::Error& e) {
    EXPECT_TRUE(contains(e.what(), message)) << e.what();
    EXPECT_EQ(e.location().line, line) << e.what();
  }
  EXPECT_NO_THROW((void)y.to_vector());
}

TEST(IndexingOps, IndicesOutOfRangeAreClampedAndReportedAtTheNextSyncPoint) {
  Tensor t = table(5, 3);
  unsigned line = 0;
  expectIndexFailure([&] { line = __LINE__; return tg::embedding(t, ids({1, 5}, {2})); },
                     "gather: an index is outside [0, 4] (axis 0 of [5, 3])", line);
  expectIndexFailure([&] { line = __LINE__; return tg::embedding(t, ids({-1}, {1})); },
                     "gather: an index is outside [0, 4]", line);
  expectIndexFailure([&] { line = __LINE__; return tg::dynamic_slice(t, 0, ids({3}, {}), 3); },
                     "dynamic_slice: the start is outside [0, 2]", line);
  expectIndexFailure(
      [&] { line = __LINE__; return tg::dynamic_update_slice(t, tg::full({1, 3}, 0.0), 0, ids({5}, {})); },
      "dynamic_update_slice: the start is outside [0, 4]", line);
  // Clamped: the nearest valid element is read (and written).
  Tensor clamped = tg::embedding(t, ids({7, -3}, {2}));
  try {
    tg::synchronize();
  } catch (const tg::Error&) {
  }
  EXPECT_EQ(clamped.to_vector(), (std::vector<float>{40, 41, 42, 0, 1, 2}));
  // Under jit: the same report, from the program's line.
  auto f = tg::jit([&](const Tensor& x, const Tensor& i) {
    line = __LINE__ + 1;
    return tg::gather(x, 1, i) * 2.0f;
  });
  expectIndexFailure([&] { return f(t, ids({0, 3}, {2})); }, "gather: an index is outside [0, 2]", line);
  EXPECT_TRUE(f.report().breaks.empty());
}

TEST(IndexingOps, ErrorsNameTheOpAndTheProblem) {
  Tensor t = table(5, 3);
  auto expectError = [](const std::function<void()>& fn, const std::string& fragment) {
    try {
      fn();
      ADD_FAILURE() << "expected an error containing '" << fragment << "'";
    } catch (const tg::Error& e) {
      EXPECT_TRUE(contains(e.what(), fragment)) << e.what();
      EXPECT_TRUE(contains(e.location().file, "IndexingOpsTest.cpp")) << e.what();
    }
  };
  Tensor i = ids({1}, {1});
  expectError([&] { (void)tg::gather(t, 2, i); }, "gather: axis 2 is out of range for rank 2");
  expectError([&] { (void)tg::gather(t, 0, tg::full({2}, 1.0)); }, "indices must be i32, got f32[2]");
  expectError([&] { (void)tg::gather(tg::randn({0, 3}), 0, i); }, "which is empty");
  expectError([&] { (void)tg::index_select(t, 0, ids({1, 2}, {1, 2})); }, "the indices must be 1-D");
  expectError([&] { (void)tg::embedding(tg::randn({5}), i); }, "the table must be 2-D");
  expectError([&] { (void)tg::dynamic_slice(t, 1, i, 4); }, "size 4 does not fit in axis 1");
  expectError([&] { (void)tg::dynamic_slice(t, 1, ids({1, 2}, {2}), 1); }, "the start must be one i32 element");
  expectError([&] { (void)tg::dynamic_update_slice(t, tg::randn({2, 3}, DType::BF16), 0, i); }, "must have the dtype and rank");
  expectError([&] { (void)tg::dynamic_update_slice(t, tg::randn({2, 3}), 0, i, {0}); }, "needs one offset per dim");
  expectError([&] { (void)tg::dynamic_update_slice(t, tg::randn({2, 2}), 0, i, {0, 2}); }, "does not fit in f32[5, 3]");
}

}  // namespace
