//===- GpuIndexingTest.cpp - Indices read on the device, on the GPU -------===//
//
// A decode-like loop (the position a device tensor that the step increments, a cache updated
// at it, an embedding looked up by a token the step chose) replayed as a CUDA graph against
// the CPU, with the cache copied and donated (updated in place); a donated argument whose
// memory another tensor shares (copied first); indices out of range: reported at the next sync point with the op's line, eagerly
// and from a replayed graph, with the clamped values the CPU gives. Values of every op and
// dtype: GpuEager.Layout and GpuJit.DecoderOpsFusedMatchTheCpu (OpCases).
//
//===----------------------------------------------------------------------===//
#include <tg/tg.h>

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

namespace {

using tg::Device;
using tg::DType;
using tg::Tensor;

Tensor ids(std::vector<int32_t> values, tg::Shape shape, Device device) {
  return tg::from_vector(values, std::move(shape)).to(device);
}

/// One decode step: the token's embedding written into the cache at `pos`, the cache read
/// back through a mask of the positions written so far, the next token the argmax of a score.
auto step = [](const Tensor& token, const Tensor& pos, const Tensor& cache, const Tensor& emb) {
  Tensor x = tg::embedding(emb, token);                                 // [1, 8]
  Tensor next = tg::dynamic_update_slice(cache, tg::reshape(x, {1, 1, 8}), 1, pos);
  Tensor seen = tg::le(tg::iota({1, 16, 1}, 1, DType::I32, token.device()), tg::reshape(pos, {1, 1, 1}));
  Tensor scores = tg::sum(tg::where(seen, next, 0.0f), {1});            // [1, 8]
  Tensor window = tg::dynamic_slice(next, 1, pos, 1);                    // this step's row
  Tensor tok = tg::argmax(tg::reshape(scores + tg::reshape(window, {1, 8}), {8}), 0, true);
  return std::tuple{tok, pos + 1, next};
};

TEST(GpuIndexing, DecodeLoopReplaysAsACudaGraphAndMatchesTheCpu) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  auto f = tg::jit(step);
  Tensor emb = tg::randn({8, 8}, DType::F32, 21, Device::CPU);
  Tensor cpuCache = tg::randn({1, 16, 8}, DType::F32, 22, Device::CPU);
  Tensor cpuTok = ids({3}, {1}, Device::CPU), cpuPos = ids({0}, {}, Device::CPU);
  Tensor gpuEmb = emb.to(Device::CUDA), gpuCache = cpuCache.to(Device::CUDA);
  Tensor gpuTok = cpuTok.to(Device::CUDA), gpuPos = cpuPos.to(Device::CUDA);
  std::vector<Tensor> tokens;
  for (int i = 0; i < 12; ++i) {
    std::tie(cpuTok, cpuPos, cpuCache) = step(cpuTok, cpuPos, cpuCache, emb);
    std::tie(gpuTok, gpuPos, gpuCache) = f(gpuTok, gpuPos, gpuCache, gpuEmb);
    tokens.push_back(gpuTok);
  }
  EXPECT_EQ(gpuCache.to_vector(), cpuCache.to_vector());
  EXPECT_EQ(gpuPos.to_vector(), cpuPos.to_vector());
  EXPECT_EQ(gpuTok.to_vector(), cpuTok.to_vector());
  tg::JitReport r = f.report();
  ASSERT_EQ(r.graphs.size(), 1u);
  EXPECT_TRUE(r.recompiles.empty());
  EXPECT_TRUE(r.breaks.empty());
  EXPECT_TRUE(r.graphs[0].cudaGraph) << r.graphs[0].noCudaGraphReason;
  EXPECT_GE(r.graphs[0].cudaGraphLaunches, 10u);
  for (size_t i = 0; i < tokens.size(); ++i) EXPECT_EQ(tokens[i].shape(), (tg::Shape{1})) << i;
}

// The cache donated: updated in place (the report says so), the same values as the copy, and
// still one CUDA graph replayed per step.
TEST(GpuIndexing, DonatedCacheIsUpdatedInPlace) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  auto f = tg::jit(step, {.donate = {2}});
  Tensor emb = tg::randn({8, 8}, DType::F32, 31, Device::CPU);
  Tensor cpuCache = tg::randn({1, 16, 8}, DType::F32, 32, Device::CPU);
  Tensor cpuTok = ids({5}, {1}, Device::CPU), cpuPos = ids({0}, {}, Device::CPU);
  Tensor gpuEmb = emb.to(Device::CUDA), gpuCache = cpuCache.to(Device::CUDA);
  Tensor gpuTok = cpuTok.to(Device::CUDA), gpuPos = cpuPos.to(Device::CUDA);
  for (int i = 0; i < 16; ++i) {
    std::tie(cpuTok, cpuPos, cpuCache) = step(cpuTok, cpuPos, cpuCache, emb);
    std::tie(gpuTok, gpuPos, gpuCache) = f(gpuTok, gpuPos, gpuCache, gpuEmb);
  }
  EXPECT_EQ(gpuCache.to_vector(), cpuCache.to_vector());
  EXPECT_EQ(gpuTok.to_vector(), cpuTok.to_vector());
  tg::JitReport r = f.report();
  ASSERT_EQ(r.graphs.size(), 1u);
  ASSERT_EQ(r.graphs[0].updates.size(), 1u);
  EXPECT_NE(r.graphs[0].updates[0].find("in place, in the memory of argument 2 (donated)"), std::string::npos)
      << r.graphs[0].updates[0];
  EXPECT_TRUE(r.graphs[0].cudaGraph);
  EXPECT_GE(r.graphs[0].cudaGraphLaunches, 14u);
  EXPECT_NE(r.str().find("in place"), std::string::npos) << r.str();
}

// A donated argument whose memory another tensor shares is copied first: that tensor keeps its
// values.
TEST(GpuIndexing, DonatedMemorySharedWithAnotherTensorIsCopiedFirst) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  auto same = tg::jit([](const Tensor& x) { return x; });  // its result shares x's memory
  auto f = tg::jit([](const Tensor& c, const Tensor& row, const Tensor& pos) {
    return tg::dynamic_update_slice(c, row, 0, pos);
  }, {.donate = {0}});
  Tensor a = tg::randn({6, 4}, DType::F32, 41, Device::CUDA);
  const std::vector<float> before = a.to_vector();
  Tensor row = tg::full({1, 4}, 7.0, DType::F32, Device::CUDA);
  for (int p = 0; p < 3; ++p) {  // first call direct, then CUDA graph replays
    Tensor b = same(a);
    Tensor c = f(b, row, ids({p}, {}, Device::CUDA));
    std::vector<float> want = before;
    for (int j = 0; j < 4; ++j) want[static_cast<size_t>(4 * p + j)] = 7.0f;
    EXPECT_EQ(c.to_vector(), want) << p;
    EXPECT_EQ(a.to_vector(), before) << p;  // a never sees the update
  }
  EXPECT_NE(f.report().graphs[0].updates.at(0).find("in place"), std::string::npos);
}

TEST(GpuIndexing, IndicesOutOfRangeAreReportedWithTheirLineAndClampedLikeTheCpu) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  Tensor emb = tg::randn({8, 4}, DType::BF16, 23, Device::CPU);
  Tensor bad = ids({2, 9, -1}, {3}, Device::CPU);
  // Eager.
  unsigned line = __LINE__ + 1;
  Tensor y = tg::embedding(emb.to(Device::CUDA), bad.to(Device::CUDA));
  try {
    (void)y.to_vector();
    FAIL() << "expected the gather to report its index";
  } catch (const tg::Error& e) {
    EXPECT_EQ(e.location().line, line) << e.what();
    EXPECT_NE(std::string(e.what()).find("gather: an index is outside [0, 7]"), std::string::npos) << e.what();
  }
  Tensor want = tg::embedding(emb, bad);
  try {
    tg::synchronize();
  } catch (const tg::Error&) {
  }
  EXPECT_EQ(tg::cast(y, DType::F32).to_vector(), tg::cast(want, DType::F32).to_vector());
  // From a replayed graph: the start of a cache update past the end.
  auto f = tg::jit([&](const Tensor& cache, const Tensor& row, const Tensor& pos) {
    line = __LINE__ + 1;
    return tg::dynamic_update_slice(cache, row, 0, pos) * 1.0f;
  });
  Tensor cache = tg::randn({6, 4}, DType::F32, 24, Device::CUDA), row = tg::randn({1, 4}, DType::F32, 25, Device::CUDA);
  for (int p = 0; p < 6; ++p) EXPECT_NO_THROW((void)f(cache, row, ids({p}, {}, Device::CUDA)).to_vector());
  Tensor past = f(cache, row, ids({6}, {}, Device::CUDA));
  try {
    (void)past.to_vector();
    FAIL() << "expected the update to report its start";
  } catch (const tg::Error& e) {
    EXPECT_EQ(e.location().line, line) << e.what();
    EXPECT_NE(std::string(e.what()).find("dynamic_update_slice: the start is outside [0, 5]"), std::string::npos)
        << e.what();
  }
  EXPECT_GE(f.report().graphs[0].cudaGraphLaunches, 1u);
}

}  // namespace
