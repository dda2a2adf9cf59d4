//===- WorkerPoolTest.cpp - The forked worker pool of tg_random_programs --===//
//
// Outcomes must reach the parent as the workers computed them: a worker that exits after a
// failure (by design) must not make the seed handed to it next look like a crash, a real crash
// is the crash of the seed it was running, and every seed is reported exactly once.
//
//===----------------------------------------------------------------------===//
#include "WorkerPool.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <vector>

namespace {

using tgrandom::Outcome;
using tgrandom::OutcomeKind;

std::vector<uint64_t> seeds(uint64_t first, uint64_t count) {
  std::vector<uint64_t> s;
  for (uint64_t i = 0; i < count; ++i) s.push_back(first + i);
  return s;
}

TEST(WorkerPool, FailuresDoNotTurnTheNextSeedIntoACrash) {
  // Every third seed fails; the worker that ran it exits and a fresh one takes over.
  tgrandom::PoolOptions options;
  options.jobs = 3;
  auto work = [](uint64_t seed) {
    Outcome o;
    if (seed % 3 == 0) {
      o.kind = OutcomeKind::Mismatch;
      o.message = "seed " + std::to_string(seed) + " fails on purpose";
    }
    return o;
  };
  int reported = 0;
  const auto results = tgrandom::runPool(seeds(1, 300), options, work,
                                         [&](const tgrandom::SeedResult&) { ++reported; });
  ASSERT_EQ(results.size(), 300u);
  EXPECT_EQ(reported, 300);
  for (const auto& r : results) {
    EXPECT_EQ(r.outcome.kind, r.seed % 3 == 0 ? OutcomeKind::Mismatch : OutcomeKind::Ok)
        << "seed " << r.seed << ": " << r.outcome.message;
  }
}

TEST(WorkerPool, ACrashIsTheCrashOfItsOwnSeed) {
  tgrandom::PoolOptions options;
  options.jobs = 2;
  auto work = [](uint64_t seed) {
    if (seed == 7) std::raise(SIGKILL);  // (not SIGSEGV: ASan would catch it and exit)
    return Outcome{};
  };
  const auto results = tgrandom::runPool(seeds(1, 20), options, work, [](const tgrandom::SeedResult&) {});
  ASSERT_EQ(results.size(), 20u);
  for (const auto& r : results) {
    EXPECT_EQ(r.outcome.kind, r.seed == 7 ? OutcomeKind::Crash : OutcomeKind::Ok)
        << "seed " << r.seed << ": " << r.outcome.message;
    if (r.seed == 7) {
      EXPECT_NE(r.outcome.message.find("signal 9"), std::string::npos) << r.outcome.message;
    }
  }
}

TEST(WorkerPool, TheDeadlineStopsHandingOutSeeds) {
  tgrandom::PoolOptions options;
  options.jobs = 2;
  options.deadlineSeconds = 0.3;
  auto work = [](uint64_t) {
    ::usleep(20000);  // 20 ms a program: about 30 run before the deadline
    return Outcome{};
  };
  const auto results = tgrandom::runPool(seeds(1, 1000), options, work, [](const tgrandom::SeedResult&) {});
  ASSERT_GT(results.size(), 4u);
  ASSERT_LT(results.size(), 500u);
  for (size_t i = 0; i < results.size(); ++i) {  // a prefix of the seeds, each run to the end
    EXPECT_EQ(results[i].seed, i + 1);
    EXPECT_EQ(results[i].outcome.kind, OutcomeKind::Ok);
  }
}

}  // namespace
