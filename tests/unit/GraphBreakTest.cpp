//===- GraphBreakTest.cpp - Graph breaks, segments, reports, tg::check (CPU) ===//
//
// On the CPU every segment runs on the reference interpreter: the segmentation, caching and
// reporting logic is the same as on the GPU.
//
//===----------------------------------------------------------------------===//
#include <tg/tg.h>

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace {

using tg::DType;
using tg::Tensor;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(GraphBreak, ItemCutsTheGraphAndTheResultMatchesEager) {
  int runs = 0;
  unsigned breakLine = 0;
  auto fn = [&](const Tensor& x) {
    ++runs;
    Tensor y = x * 2.0f;
    breakLine = __LINE__ + 1;
    float total = tg::sum(y).item();
    return y + total;  // uses y (computed before the break) and the host value
  };
  auto f = tg::jit(fn, {.name = "item_break"});
  Tensor x = tg::randn({16}, DType::F32, 3);
  std::vector<float> got = f(x).to_vector(), want = fn(x).to_vector();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], want[i]) << i;

  tg::JitReport r = f.report();
  ASSERT_EQ(r.breaks.size(), 1u);
  EXPECT_EQ(r.breaks[0].what, "item()");
  EXPECT_EQ(r.breaks[0].loc.line, breakLine);
  EXPECT_TRUE(contains(r.breaks[0].loc.file, "GraphBreakTest.cpp"));
  EXPECT_TRUE(contains(r.breaks[0].hint, "tg::where"));
  EXPECT_EQ(r.breaks[0].segment, 0);
  EXPECT_FALSE(r.breaks[0].approximateLocation);
  EXPECT_EQ(r.graphs.size(), 2u);  // before and after the break
  EXPECT_EQ(r.cacheMisses, 2u);
  EXPECT_EQ(r.syncs.size(), 1u);  // a break is also a sync point
}

TEST(GraphBreak, SegmentsAreCachedAndTheLambdaRerunsEveryCall) {
  int runs = 0;
  auto f = tg::jit([&](const Tensor& x) {
    ++runs;
    Tensor y = tg::exp(x);
    if (tg::max(y).item() > 2.0f) return y * 0.5f;  // data-dependent branch
    return y - 1.0f;
  });
  Tensor big = tg::full({8}, 1.5), small = tg::full({8}, 0.1);
  (void)f(big).to_vector();
  EXPECT_EQ(f.report().cacheMisses, 2u);  // segment 0 and the "> 2" branch
  (void)f(big).to_vector();
  EXPECT_EQ(runs, 2);                     // the C++ control flow runs on every call
  EXPECT_EQ(f.report().cacheMisses, 2u);  // ... but nothing is recompiled
  EXPECT_EQ(f.report().cacheHits, 2u);
  std::vector<float> other = f(small).to_vector();  // the other branch: one new segment
  EXPECT_EQ(f.report().cacheMisses, 3u);
  EXPECT_NEAR(other[0], std::exp(0.1f) - 1.0f, 1e-6);
  EXPECT_EQ(f.report().breaks.size(), 1u);
  EXPECT_EQ(f.report().breaks[0].count, 3u);
  EXPECT_EQ(f.report().replays, 0u);
}

TEST(GraphBreak, BreakFreeFunctionsReplayWithoutRunningTheLambda) {
  int runs = 0;
  auto f = tg::jit([&](const Tensor& x) {
    ++runs;
    return tg::tanh(x) + 1.0f;
  });
  Tensor x = tg::randn({5});
  for (int i = 0; i < 4; ++i) (void)f(x);
  EXPECT_EQ(runs, 1);
  tg::JitReport r = f.report();
  EXPECT_EQ(r.calls, 4u);
  EXPECT_EQ(r.replays, 3u);
  EXPECT_EQ(r.graphs.size(), 1u);
  EXPECT_EQ(r.graphs[0].runs, 4u);
  EXPECT_TRUE(r.breaks.empty());
}

TEST(GraphBreak, FullgraphThrowsAtTheBreakLine) {
  unsigned line = 0;
  auto f = tg::jit(
      [&](const Tensor& x) {
        line = __LINE__ + 1;
        std::vector<float> v = x.to_vector();
        return x * v[0];
      },
      {.fullgraph = true});
  try {
    (void)f(tg::randn({3}));
    FAIL() << "expected tg::GraphBreakError";
  } catch (const tg::GraphBreakError& e) {
    EXPECT_EQ(e.location().line, line);
    EXPECT_TRUE(contains(e.what(), "to_vector()")) << e.what();
    EXPECT_TRUE(contains(e.what(), "graph break")) << e.what();
  }
}

TEST(GraphBreak, OperatorBoolReportsTheLineOfTheValueAndSaysSo) {
  unsigned valueLine = 0;
  auto f = tg::jit([&](const Tensor& x) {
    valueLine = __LINE__ + 1;
    Tensor positive = tg::sum(x) > 0.0f;
    if (positive) return x;  // operator bool: no std::source_location possible
    return -x;
  });
  std::vector<float> got = f(tg::full({4}, -2.0)).to_vector();
  EXPECT_EQ(got, (std::vector<float>{2, 2, 2, 2}));
  tg::JitReport r = f.report();
  ASSERT_EQ(r.breaks.size(), 1u);
  EXPECT_EQ(r.breaks[0].what, "operator bool");
  EXPECT_TRUE(r.breaks[0].approximateLocation);
  EXPECT_EQ(r.breaks[0].loc.line, valueLine);
  EXPECT_TRUE(contains(r.str(), "no source location")) << r.str();
}

TEST(GraphBreak, SeveralBreaksInALoop) {
  auto f = tg::jit([](const Tensor& x) {
    Tensor y = x;
    for (int i = 0; i < 5 && tg::max(tg::abs(y)).item() > 1.0f; ++i) y = y * 0.5f;
    return y;
  });
  Tensor x = tg::full({3}, 10.0);
  std::vector<float> got = f(x).to_vector();
  EXPECT_FLOAT_EQ(got[0], 0.625f);  // 10 -> 5 -> 2.5 -> 1.25 -> 0.625
  tg::JitReport r = f.report();
  ASSERT_EQ(r.breaks.size(), 1u);   // one place ...
  EXPECT_EQ(r.breaks[0].count, 5u);  // ... five times
  // A second call recompiles nothing: every segment has been seen.
  uint64_t misses = r.cacheMisses;
  (void)f(tg::full({3}, 10.0)).to_vector();
  EXPECT_EQ(f.report().cacheMisses, misses);
}

TEST(Recompiles, ReasonsNameTheChangedInput) {
  auto f = tg::jit([](const Tensor& x, const Tensor& y) { return x + y; });
  (void)f(tg::randn({4}), tg::randn({4}));
  (void)f(tg::randn({8}), tg::randn({8}));
  (void)f(tg::randn({8}, DType::BF16), tg::randn({8}, DType::BF16));
  (void)f(tg::randn({8}), tg::randn({8}));  // seen before: no recompile
  tg::JitReport r = f.report();
  ASSERT_EQ(r.recompiles.size(), 2u);
  EXPECT_EQ(r.recompiles[0], "input 0 shape [4] -> [8], input 1 shape [4] -> [8]");
  EXPECT_EQ(r.recompiles[1], "input 0 dtype f32 -> bf16, input 1 dtype f32 -> bf16");
  EXPECT_EQ(r.replays, 1u);
}

// Issue 13, bug 4: the reason names what differs from the NEAREST compiled signature, not
// from the previous call: after f32[1024] and f32[2048], bf16[1024] differs from f32[1024] in
// its dtype only.
TEST(Recompiles, ReasonsCompareWithTheNearestCompiledSignature) {
  auto f = tg::jit([](const Tensor& x) { return x * 2.0f; });
  (void)f(tg::randn({1024}));
  (void)f(tg::randn({2048}));
  (void)f(tg::randn({1024}, DType::BF16));
  (void)f(tg::randn({2048}, DType::BF16));  // nearest: bf16[1024] and f32[2048], one field each
  (void)f(tg::randn({1, 1024}));            // nearest: any f32 one; the rank changed
  tg::JitReport r = f.report();
  ASSERT_EQ(r.recompiles.size(), 4u);
  EXPECT_EQ(r.recompiles[0], "input 0 shape [1024] -> [2048]");
  EXPECT_EQ(r.recompiles[1], "input 0 dtype f32 -> bf16");
  EXPECT_EQ(r.recompiles[2], "input 0 shape [1024] -> [2048]");  // the most recent of equals
  EXPECT_EQ(r.recompiles[3], "input 0 shape [2048] -> [1, 1024]");
}

TEST(Recompiles, TheLimitIsReported) {
  auto f = tg::jit([](const Tensor& x) { return x * 2.0f; }, {.recompile_limit = 2});
  for (int64_t n : {1, 2, 3}) (void)f(tg::randn({n}));
  tg::JitReport r = f.report();
  EXPECT_TRUE(r.recompileLimitExceeded);
  EXPECT_EQ(r.recompileLimit, 2);
  EXPECT_TRUE(contains(r.str(), "recompile limit")) << r.str();
  auto g = tg::jit([](const Tensor& x) { return x * 2.0f; });
  for (int64_t n : {1, 2, 3}) (void)g(tg::randn({n}));
  EXPECT_FALSE(g.report().recompileLimitExceeded);
}

TEST(Check, APassingCheckIsSilent) {
  auto f = tg::jit([](const Tensor& x) {
    tg::check(tg::abs(x) < 100.0f, "x is bounded");
    return x + 1.0f;
  });
  EXPECT_NO_THROW((void)f(tg::randn({32})).to_vector());
  EXPECT_TRUE(f.report().breaks.empty());
}

TEST(Check, AFailingCheckSurfacesAtTheNextSyncPointWithItsLine) {
  unsigned line = 0;
  auto f = tg::jit([&](const Tensor& x) {
    line = __LINE__ + 1;
    tg::check(x > 0.0f, "x must be positive");
    return x * 2.0f;
  });
  Tensor y = f(tg::from_vector({1.0f, -1.0f, 2.0f}, {3}));  // no error yet: nothing waited
  EXPECT_TRUE(f.report().breaks.empty());                    // and the graph did not break
  try {
    (void)y.to_vector();
    FAIL() << "expected the check to fail here";
  } catch (const tg::Error& e) {
    EXPECT_TRUE(contains(e.what(), "x must be positive")) << e.what();
    EXPECT_EQ(e.location().line, line);
  }
  // Reported once: the next read is clean.
  EXPECT_NO_THROW((void)y.to_vector());
}

TEST(Check, EagerChecksToo) {
  tg::check(tg::full({2}, 1.0) > 0.0f, "fine");
  EXPECT_NO_THROW(tg::synchronize());
  unsigned line = __LINE__ + 1;
  tg::check(tg::full({2}, -1.0) > 0.0f, "negative");
  try {
    tg::synchronize();
    FAIL() << "expected the check to fail";
  } catch (const tg::Error& e) {
    EXPECT_EQ(e.location().line, line);
    EXPECT_TRUE(contains(e.what(), "negative"));
  }
  unsigned badLine = __LINE__ + 1;
  try { tg::check(tg::full({2}, 1.0), "not bool"); FAIL(); } catch (const tg::Error& e) {
    EXPECT_EQ(e.location().line, badLine);
    EXPECT_TRUE(contains(e.what(), "bool"));
  }
}

TEST(Check, ACheckAfterTheLastBreakStillRuns) {
  auto f = tg::jit([](const Tensor& x) {
    float total = tg::sum(x).item();  // break: x is concrete from here on
    tg::check(x < total + 1.0f, "checked after the break");
    return x;  // already concrete: the last segment holds only the check
  });
  EXPECT_NO_THROW((void)f(tg::full({3}, 1.0)).to_vector());
  EXPECT_THROW((void)f(tg::full({3}, -1.0)).to_vector(), tg::Error);  // -1 < -3 + 1 is false
}

TEST(SyncPoints, SynchronizeIsRecordedWithItsLine) {
  tg::clear_sync_points();
  unsigned line = __LINE__ + 2;
  for (int i = 0; i < 3; ++i)
    tg::synchronize();
  std::vector<tg::JitReport::Event> events = tg::sync_points();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].what, "synchronize()");
  EXPECT_EQ(events[0].count, 3u);
  EXPECT_EQ(events[0].loc.line, line);
}

TEST(Report, PrintsGraphsBreaksAndRecompiles) {
  auto f = tg::jit([](const Tensor& x) {
    Tensor s = tg::sum(x);
    return x / s.item();
  }, {.name = "normalise"});
  (void)f(tg::rand({4}));
  (void)f(tg::rand({6}));
  std::string text = f.report().str();
  EXPECT_TRUE(contains(text, "jit 'normalise'")) << text;
  EXPECT_TRUE(contains(text, "graph breaks: 1")) << text;
  EXPECT_TRUE(contains(text, "item()")) << text;
  EXPECT_TRUE(contains(text, "input 0 shape [4] -> [6]")) << text;
  EXPECT_TRUE(contains(text, "graph 0:")) << text;
}

TEST(Report, SaysHowLongEachGraphTookToCompileByStep) {
  auto f = tg::jit([](const Tensor& x) { return tg::exp(x) * 2.0f; }, {.name = "timed"});
  (void)f(tg::rand({8}));
  const tg::JitReport r = f.report();
  ASSERT_EQ(r.graphs.size(), 1u);
  const tg::JitReport::Graph& g = r.graphs[0];
  EXPECT_GT(g.compileMs, 0.0);
  // On the CPU: import, verify and the stages the reference target runs, in order.
  ASSERT_GE(g.compileStagesMs.size(), 3u);
  EXPECT_EQ(g.compileStagesMs[0].first, "import");
  EXPECT_EQ(g.compileStagesMs[1].first, "verify");
  EXPECT_EQ(g.compileStagesMs[2].first, "canonicalize");
  double steps = 0;
  for (const auto& [what, ms] : g.compileStagesMs) {
    EXPECT_GE(ms, 0.0) << what;
    steps += ms;
  }
  EXPECT_LE(steps, g.compileMs + 0.5);  // the steps are parts of the whole
  const std::string text = r.str();
  EXPECT_TRUE(contains(text, "compiled in ")) << text;
  EXPECT_TRUE(contains(text, "compile: import ")) << text;
}

}  // namespace
