//===- PlanSizesTest.cpp - A symbolic plan's numbers at one set of sizes ---===//
//
// rt::evaluatePlanSizes (runtime/include/tg/Runtime/PlanSizes.h): what the Executor computes
// when a plan compiled for a range of sizes runs at new ones. Hand-made plans; no GPU.
//
//===----------------------------------------------------------------------===//
#include "tg/Runtime/ArenaPacking.h"
#include "tg/Runtime/PlanSizes.h"
#include "tg/Support/Error.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using tg::SizeExpr;
using namespace tg::rt;

const SizeExpr kBatch = SizeExpr::symbol(0);
const SizeExpr kSeq = SizeExpr::symbol(1);

/// x[batch, seq, 64] f32 -> t = f(x) (arena) -> u = g(t) (arena) -> y = h(u) (result), plus a
/// 1 KiB arena buffer live over everything. Launch l makes buffer l + 1 and reads buffer l.
Plan symbolicPlan() {
  Plan p;
  p.name = "chain";
  p.symbols = {{"batch", 1, 256}, {"seq", 1, 8192}};
  p.kernels.push_back({"k", "", "test"});
  const SizeExpr bytes = kBatch * kSeq * 256;  // 64 floats per row
  auto buffer = [&](PlanBuffer::Kind kind, int made, int last) {
    PlanBuffer b;
    b.kind = kind;
    b.symbolicBytes = bytes;
    b.madeAt = made;
    b.lastReadAt = last;
    p.buffers.push_back(b);
  };
  buffer(PlanBuffer::Kind::Input, 0, 0);
  p.buffers.back().index = 0;
  buffer(PlanBuffer::Kind::Arena, 0, 1);
  buffer(PlanBuffer::Kind::Arena, 1, 2);
  buffer(PlanBuffer::Kind::Output, 2, 2);
  PlanBuffer fixed;
  fixed.kind = PlanBuffer::Kind::Arena;
  fixed.bytes = 1024;
  fixed.madeAt = 0;
  fixed.lastReadAt = 2;
  p.buffers.push_back(fixed);
  for (int l = 0; l < 3; ++l) {
    PlanLaunch launch;
    launch.kernel = 0;
    launch.buffers = {l, l + 1};
    launch.dims.block[0] = 256;
    launch.symbolicGrid = {PlanExtent{kBatch * kSeq * 64, 256 * 4, 132 * 8}, PlanExtent{kBatch, 1}};
    launch.sizes = {kBatch * kSeq * 64, kSeq - 1};
    p.launches.push_back(launch);
  }
  p.outputs = {3};
  p.outputDTypes = {tg::DType::F32};
  p.symbolicOutputShapes = {{kBatch, kSeq, SizeExpr(64)}};
  return p;
}

// After a size change a grid that still covers the work and is at most 4x what it needs is
// kept (only the parameters of a CUDA graph node change then); a grid that is too small or
// far too large is not, nor are fixed grids.
TEST(PlanSizes, ASmallerSizeKeepsAGridThatStillCoversIt) {
  Plan p = symbolicPlan();
  p.launches[2].symbolicGrid.clear();
  p.launches[2].dims.grid[0] = 7;
  PlanSizes before, after;
  evaluatePlanSizes(p, std::vector<int64_t>{4, 1000}, before);  // ceil(4*1000*64 / 1024) = 250 blocks
  evaluatePlanSizes(p, std::vector<int64_t>{2, 1000}, after);   // 125
  keepCoveringGrids(p, before, after);
  EXPECT_EQ(after.dims[0].grid[0], 250u);
  EXPECT_EQ(after.dims[0].grid[1], 2u);  // (only x is kept)
  EXPECT_EQ(after.dims[2].grid[0], 7u);
  evaluatePlanSizes(p, std::vector<int64_t>{1, 100}, after);  // 7 blocks: 250 is more than 4x
  keepCoveringGrids(p, before, after);
  EXPECT_EQ(after.dims[0].grid[0], 7u);
  evaluatePlanSizes(p, std::vector<int64_t>{8, 1000}, after);  // 500: 250 no longer covers it
  keepCoveringGrids(p, before, after);
  EXPECT_EQ(after.dims[0].grid[0], 500u);
}

// Grid classes: a symbolic grid rounds up to a power of two, within its cap and never below
// what the sizes need; fixed grids stay as they are.
TEST(PlanSizes, SymbolicGridsRoundUpToAPowerOfTwoWithinTheirCap) {
  Plan p = symbolicPlan();
  p.launches[2].symbolicGrid.clear();
  p.launches[2].dims.grid[0] = 7;
  PlanSizes s;
  evaluatePlanSizes(p, std::vector<int64_t>{2, 1000}, s);  // 125 blocks
  ASSERT_EQ(s.dims[0].grid[0], 125u);
  roundGridsUp(p, s);
  EXPECT_EQ(s.dims[0].grid[0], 128u);
  EXPECT_EQ(s.dims[0].grid[1], 2u);  // (only x)
  EXPECT_EQ(s.dims[2].grid[0], 7u);
  evaluatePlanSizes(p, std::vector<int64_t>{4, 1000}, s);  // 250
  roundGridsUp(p, s);
  EXPECT_EQ(s.dims[0].grid[0], 256u);
  evaluatePlanSizes(p, std::vector<int64_t>{4, 1024}, s);  // 256: a power of two already
  roundGridsUp(p, s);
  EXPECT_EQ(s.dims[0].grid[0], 256u);
  p.launches[0].symbolicGrid[0].cap = 200;  // capped: 250 -> 200, never rounded past the cap
  evaluatePlanSizes(p, std::vector<int64_t>{4, 1000}, s);
  roundGridsUp(p, s);
  EXPECT_EQ(s.dims[0].grid[0], 200u);
  evaluatePlanSizes(p, std::vector<int64_t>{2, 1000}, s);  // 125 -> 128 is within it
  roundGridsUp(p, s);
  EXPECT_EQ(s.dims[0].grid[0], 128u);
}

// A persistent matmul's grid and its TMA maps over dynamic rows: ceil(M / 128) tile rows times
// 4 tile columns times the batch, at most 132 CTAs in balanced rounds (as EmitMatmulWgmma
// computes a static grid), and the maps' rows and batch strides at the sizes.
TEST(PlanSizes, PersistentGridsAndTensorMapsFollowTheSymbols) {
  Plan p = symbolicPlan();
  PlanLaunch& gemm = p.launches[1];
  gemm.symbolicGrid = {PlanExtent{kSeq, 128, 132, kBatch * SizeExpr(4), true}};
  PlanTensorMap map;
  map.arg = 0;
  map.spec.rank = 3;
  map.spec.box[0] = 64;
  map.spec.box[1] = 128;
  map.symbolicDims = {SizeExpr(256), kSeq, kBatch};
  map.symbolicStrides = {SizeExpr(512), kSeq * SizeExpr(512)};
  gemm.tensorMaps = {map};
  PlanSizes s;
  auto ctas = [&](int64_t batch, int64_t seq) {
    evaluatePlanSizes(p, std::vector<int64_t>{batch, seq}, s);
    return s.dims[1].grid[0];
  };
  EXPECT_EQ(ctas(1, 1), 4u);        // 4 tiles: one CTA each
  EXPECT_EQ(ctas(2, 129), 16u);     // 2 x 2 x 4 tiles
  EXPECT_EQ(ctas(1, 4224), 132u);   // 33 x 4 = 132 tiles: one round
  EXPECT_EQ(ctas(1, 4225), 68u);    // 136 tiles: two rounds, so 68 CTAs of two tiles each
  EXPECT_EQ(ctas(8, 8192), 128u);   // 8 x 64 x 4 = 2048 tiles: 16 rounds of 128
  evaluatePlanSizes(p, std::vector<int64_t>{3, 100}, s);
  ASSERT_EQ(s.tensorMaps.size(), 3u);
  ASSERT_EQ(s.tensorMaps[1].size(), 1u);
  const TensorMapSpec& t = s.tensorMaps[1][0];
  EXPECT_EQ(t.dims[0], 256u);
  EXPECT_EQ(t.dims[1], 100u);
  EXPECT_EQ(t.dims[2], 3u);
  EXPECT_EQ(t.strides[0], 512u);
  EXPECT_EQ(t.strides[1], 51200u);
  EXPECT_EQ(t.box[1], 128u);  // the rest of the spec as it is
  EXPECT_TRUE(s.tensorMaps[0].empty());
}

TEST(PlanSizes, BytesGridsSizesAndShapesFollowTheSymbols) {
  const Plan p = symbolicPlan();
  PlanSizes s;
  const std::vector<int64_t> values = {3, 7};
  evaluatePlanSizes(p, values, s);
  const size_t bytes = 3 * 7 * 256;
  EXPECT_EQ(s.values, values);
  EXPECT_EQ(s.bufferBytes, (std::vector<size_t>{bytes, bytes, bytes, bytes, 1024}));
  ASSERT_EQ(s.outputShapes.size(), 1u);
  EXPECT_EQ(s.outputShapes[0], (tg::Shape{3, 7, 64}));
  ASSERT_EQ(s.dims.size(), 3u);
  // ceil(3*7*64 / 1024) = 2 blocks along x; y = batch.
  EXPECT_EQ(s.dims[0].grid[0], 2u);
  EXPECT_EQ(s.dims[0].grid[1], 3u);
  EXPECT_EQ(s.dims[0].grid[2], 1u);
  EXPECT_EQ(s.dims[0].block[0], 256u);
  EXPECT_EQ(s.launchSizes[1], (std::vector<int64_t>{3 * 7 * 64, 6}));
  // The arena is what packArena makes of the evaluated requests, in launch order.
  const std::vector<ArenaRequest> requests = {{int64_t(bytes), 0, 1}, {int64_t(bytes), 1, 2}, {1024, 0, 2}};
  std::vector<ArenaRequest> ordered = {requests[0], requests[2], requests[1]};
  const ArenaLayout layout = packArena(ordered);
  EXPECT_EQ(s.bufferOffsets[1], size_t(layout.offsets[0]));
  EXPECT_EQ(s.bufferOffsets[4], size_t(layout.offsets[1]));
  EXPECT_EQ(s.bufferOffsets[2], size_t(layout.offsets[2]));
  EXPECT_EQ(s.arenaBytes, size_t(layout.bytes));
  EXPECT_EQ(s.deviceBytes, s.arenaBytes + bytes);
  // Live ranges that overlap never share bytes.
  EXPECT_NE(s.bufferOffsets[1], s.bufferOffsets[2]);
}

TEST(PlanSizes, GridsAreCappedAndAtLeastOneBlock) {
  const Plan p = symbolicPlan();
  PlanSizes s;
  evaluatePlanSizes(p, std::vector<int64_t>{256, 8192}, s);
  EXPECT_EQ(s.dims[2].grid[0], 132u * 8) << "256*8192*64 / 1024 blocks, capped";
  EXPECT_EQ(s.dims[2].grid[1], 256u);
  evaluatePlanSizes(p, std::vector<int64_t>{1, 1}, s);
  EXPECT_EQ(s.dims[0].grid[0], 1u);
  EXPECT_EQ(s.launchSizes[0], (std::vector<int64_t>{64, 0}));
  EXPECT_EQ(s.outputShapes[0], (tg::Shape{1, 1, 64}));
}

TEST(PlanSizes, ABiggerSizeGrowsTheArenaAndASmallerOneShrinksIt) {
  const Plan p = symbolicPlan();
  PlanSizes small, big;
  evaluatePlanSizes(p, std::vector<int64_t>{2, 5}, small);
  evaluatePlanSizes(p, std::vector<int64_t>{200, 5000}, big);
  EXPECT_GT(big.arenaBytes, small.arenaBytes);
  EXPECT_GE(big.arenaBytes, 2 * size_t(200) * 5000 * 256) << "two temporaries live at once";
}

template <typename Fn>
std::string errorOf(Fn fn) {
  try {
    fn();
  } catch (const tg::Error& e) {
    return e.what();
  }
  return "";
}

TEST(PlanSizes, WrongCountsRangesAndNegativeSizesAreErrors) {
  const Plan p = symbolicPlan();
  PlanSizes s;
  std::string e = errorOf([&] { evaluatePlanSizes(p, std::vector<int64_t>{3}, s); });
  EXPECT_NE(e.find("2 symbol(s) (batch, seq)"), std::string::npos) << e;
  EXPECT_NE(e.find("passed 1 value"), std::string::npos) << e;
  e = errorOf([&] { evaluatePlanSizes(p, std::vector<int64_t>{3, 8193}, s); });
  EXPECT_NE(e.find("seq = 8193 is outside its range [1, 8192]"), std::string::npos) << e;
  e = errorOf([&] { evaluatePlanSizes(p, std::vector<int64_t>{0, 7}, s); });
  EXPECT_NE(e.find("batch = 0 is outside"), std::string::npos) << e;

  Plan negative = symbolicPlan();
  negative.symbols[1].min = 0;
  e = errorOf([&] { evaluatePlanSizes(negative, std::vector<int64_t>{3, 0}, s); });
  EXPECT_NE(e.find("size argument 1 of launch 0 = seq - 1 is -1 at batch = 3, seq = 0"), std::string::npos) << e;

  Plan tall = symbolicPlan();
  tall.launches[0].symbolicGrid[1] = PlanExtent{kBatch * kSeq, 1};  // y beyond 65535
  e = errorOf([&] { evaluatePlanSizes(tall, std::vector<int64_t>{256, 8192}, s); });
  EXPECT_NE(e.find("grid axis y of launch 0 needs 2097152 blocks, beyond CUDA's limit of 65535"), std::string::npos) << e;

  Plan fixed;
  fixed.name = "static";
  e = errorOf([&] { evaluatePlanSizes(fixed, std::vector<int64_t>{1}, s); });
  EXPECT_NE(e.find("has 0 symbol(s) but the run passed 1"), std::string::npos) << e;
}

TEST(PlanSizes, AStaticPlanKeepsItsOwnNumbers) {
  Plan p;
  p.name = "static";
  p.kernels.push_back({"k", "", "test"});
  PlanBuffer in;
  in.kind = PlanBuffer::Kind::Input;
  in.index = 0;
  in.bytes = 4096;
  PlanBuffer t;
  t.kind = PlanBuffer::Kind::Arena;
  t.bytes = 4096;
  t.offset = 512;  // as tg-assign-buffers placed it: kept, not packed again
  PlanBuffer out;
  out.kind = PlanBuffer::Kind::Output;
  out.bytes = 4096;
  p.buffers = {in, t, out};
  p.arenaBytes = 8192;
  PlanLaunch l;
  l.kernel = 0;
  l.buffers = {0, 1};
  l.dims.grid[0] = 7;
  p.launches = {l};
  p.outputs = {2};
  p.outputShapes = {{1024}};
  PlanSizes s;
  evaluatePlanSizes(p, {}, s);
  EXPECT_EQ(s.bufferOffsets[1], 512u);
  EXPECT_EQ(s.arenaBytes, 8192u);
  EXPECT_EQ(s.dims[0].grid[0], 7u);
  EXPECT_EQ(s.outputShapes[0], (tg::Shape{1024}));
  EXPECT_EQ(s.deviceBytes, 8192u + 4096u);
}

TEST(PlanSizes, APlanPrintsItsSymbolsAndSymbolicSizes) {
  const std::string text = symbolicPlan().str();
  EXPECT_NE(text.find("symbols: batch in [1, 256] seq in [1, 8192]"), std::string::npos) << text;
  EXPECT_NE(text.find("256*batch*seq bytes"), std::string::npos) << text;
  EXPECT_NE(text.find("grid from sizes (ceil((64*batch*seq) / 1024) <= 1056, ceil((batch) / 1))"), std::string::npos) << text;
  EXPECT_NE(text.find("sizes [64*batch*seq, seq - 1]"), std::string::npos) << text;
}

}  // namespace
