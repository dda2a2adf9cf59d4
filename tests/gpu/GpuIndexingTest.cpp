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
#include "GpuCompare.h"

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

/// Three layers of one [layers, heads, positions, dim] cache (donated: updated in place), as
/// a decoder's layers use it: each writes its row at `pos`, then reads its layer's window as a
/// matmul operand three ways (q @ keys^T, a gemv; p @ keys, a tensor-core gemm; softmax of the
/// scores @ keys, decode's probs @ values). Where a layer's offset is a multiple of 256 bytes
/// the kernels read and write through views of the cache (rt::PlanBuffer aliases at an offset)
/// and the layers share their kernels; elsewhere the offsets stay in the code.
void checkLayersOfOneCache(int64_t heads, int64_t positions, int64_t dim, uint64_t seed) {
  SCOPED_TRACE("cache [3, " + std::to_string(heads) + ", " + std::to_string(positions) + ", " +
               std::to_string(dim) + "] bf16");
  const int64_t layers = 3;
  auto step = [=](const Tensor& cache, const Tensor& rows, const Tensor& pos, const Tensor& q, const Tensor& p) {
    Tensor c = cache;
    std::vector<Tensor> out;
    for (int64_t l = 0; l < layers; ++l) {
      Tensor row = tg::reshape(tg::slice(rows, 0, l, l + 1), {1, heads, 1, dim});
      c = tg::dynamic_update_slice(c, row, 2, pos, {l, 0, 0, 0});
      Tensor keys = tg::reshape(tg::slice(c, 0, l, l + 1), {heads, positions, dim});
      Tensor scores = tg::matmul(q, tg::transpose(keys, -1, -2));                  // [heads, 1, positions]
      out.push_back(scores);
      out.push_back(tg::matmul(p, keys));                                          // [heads, 64, dim]
      out.push_back(tg::matmul(tg::cast(tg::softmax(tg::cast(scores, DType::F32)), DType::BF16), keys));
    }
    out.push_back(c);
    return out;
  };
  auto f = tg::jit([&](const Tensor& cache, const Tensor& rows, const Tensor& pos, const Tensor& q, const Tensor& p) {
    std::vector<Tensor> r = step(cache, rows, pos, q, p);
    return std::tuple{r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9]};
  }, {.donate = {0}});
  Tensor cpuCache = tg::randn({layers, heads, positions, dim}, DType::BF16, seed, Device::CPU);
  Tensor gpuCache = cpuCache.to(Device::CUDA);
  for (int32_t i = 0; i < 3; ++i) {  // the first call, then CUDA graph replays
    SCOPED_TRACE("step " + std::to_string(i));
    Tensor rows = tg::randn({layers, heads, 1, dim}, DType::BF16, seed + 10 + i, Device::CPU);
    Tensor q = tg::randn({heads, 1, dim}, DType::BF16, seed + 20 + i, Device::CPU);
    Tensor p = tg::randn({heads, 64, positions}, DType::BF16, seed + 30 + i, Device::CPU);
    Tensor pos = ids({i}, {}, Device::CPU);
    std::vector<Tensor> want = step(cpuCache, rows, pos, q, p);
    auto got = f(gpuCache, rows.to(Device::CUDA), pos.to(Device::CUDA), q.to(Device::CUDA), p.to(Device::CUDA));
    const std::vector<Tensor> gotAll = {std::get<0>(got), std::get<1>(got), std::get<2>(got), std::get<3>(got),
                                        std::get<4>(got), std::get<5>(got), std::get<6>(got), std::get<7>(got),
                                        std::get<8>(got), std::get<9>(got)};
    ASSERT_EQ(gotAll.size(), want.size());
    EXPECT_EQ(gotAll.back().to_vector(), want.back().to_vector()) << "the cache";
    // bf16 products are exact in f32; the sums of at most 64 terms differ from the
    // reference's by a few f32 ulps, and the bf16 results then round to a neighbour at most
    // (2 bf16 ulps). In decode's softmax(scores) @ keys the fused kernels keep the scores in
    // f32 (a gemm epilogue rounds only what it stores), and a score rounded to bf16 moves the
    // softmax by up to 12% (an ulp is 0.125 at 16): its reference takes f32 scores. Its
    // probabilities (bf16, each at most 1) may each round to a neighbour (2^-9) on the GPU;
    // against keys of |k| < 4 a few of them move a result by up to 2^-5. A window read at the
    // wrong place moves results by about 1.
    for (size_t r = 0; r + 1 < want.size(); ++r) {
      Tensor ref = want[r];
      if (r % 3 == 2) {
        const int64_t l = static_cast<int64_t>(r / 3);
        Tensor keys = tg::reshape(tg::slice(want.back(), 0, l, l + 1), {heads, positions, dim});
        Tensor scores = tg::matmul(tg::cast(q, DType::F32), tg::transpose(tg::cast(keys, DType::F32), -1, -2));
        ref = tg::matmul(tg::cast(tg::softmax(scores), DType::BF16), keys);
      }
      tggpu::compare(gotAll[r].to(Device::CPU), ref,
                     tggpu::Tolerance{.dtypeUlps = 2, .abs = r % 3 == 2 ? 0x1p-5 : 0x1p-10, .norm = 1e-2,
                                      .rule = "bf16 matmul result " + std::to_string(r)});
    }
    cpuCache = want.back();
    gpuCache = gotAll.back();
  }
  tg::JitReport r = f.report();
  ASSERT_EQ(r.graphs.size(), 1u);
  EXPECT_TRUE(r.recompiles.empty());
  for (const std::string& u : r.graphs[0].updates) EXPECT_NE(u.find("in place"), std::string::npos) << u;
}

TEST(GpuIndexing, LayersOfOneCacheReadAndWrittenThroughViewsMatchTheCpu) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  checkLayersOfOneCache(2, 64, 64, 51);  // layers 16 KiB apart: views
  checkLayersOfOneCache(2, 5, 24, 61);   // 480 bytes apart: 256 in a view, 224 in the code
  checkLayersOfOneCache(1, 4, 8, 71);    // 64 bytes apart: offsets in the code
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
