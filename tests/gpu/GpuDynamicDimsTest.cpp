//===- GpuDynamicDimsTest.cpp - jit functions compiled once for ranges of sizes ===//
//
//  GpuDynamicDims.*  tg::jit with JitOptions::dynamic on the GPU (issue 18): a graph whose
//                    kernels take their sizes as arguments serves every size in the range with
//                    one compile. At each size (1, primes, non-multiples of the vector width,
//                    the top of the range), elementwise kernels with broadcasts over the rows
//                    and row kernels (softmax, layer_norm, an RMS norm) over dynamic rows,
//                    direct and replayed as a CUDA graph whose
//                    parameters and grids change in place, the result equals the same
//                    function compiled for that exact shape bit for bit and the CPU reference
//                    within the chain's error bound; the recompile count over a sweep of sizes
//                    is the number of variants (sizes from 2, and a size of 1). Reads through
//                    transposes and reshapes of dynamic dims (run-time extents in the index
//                    arithmetic) too.
//
// Every test skips without a GPU.
//===----------------------------------------------------------------------===//
#include "GpuCompare.h"
#include "graphs.h"
#include "llama_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using namespace tggpu;

tg::Tensor values(int64_t batch, int64_t seq, DType dtype, uint64_t seed) {
  return tg::cast(tg::randn({batch, seq, 24}, DType::F32, seed, Device::CPU), dtype);
}

template <typename F>
void checkChain(F& dynamic, int64_t batch, int64_t seq,
                DType dtype, uint64_t seed) {
  SCOPED_TRACE("batch " + std::to_string(batch) + ", seq " + std::to_string(seq) + ", " + tg::dtype_name(dtype));
  Tensor x = values(batch, seq, dtype, seed), y = values(batch, seq, dtype, seed + 1000);
  Tensor dx = x.to(Device::CUDA), dy = y.to(Device::CUDA);
  Tensor got = dynamic(dx, dy);
  ASSERT_EQ(got.shape(), (tg::Shape{batch, seq, 24}));
  // The same function compiled for exactly this shape: the same math per element.
  auto exact = tg::jit([](const Tensor& a, const Tensor& b) { return readmeChain(a, b); });
  std::string why;
  EXPECT_TRUE(sameBits(got, exact(dx, dy), why)) << why;
  Tensor want = readmeChain(tg::cast(x, DType::F32), tg::cast(y, DType::F32));
  Tensor yf = tg::cast(y, DType::F32);
  const std::vector<float> ys = yf.to_vector<float>();
  compare(tg::cast(got, DType::F32).to(Device::CPU), want, [&](int64_t i, double z) { return chainBound(dtype, ys[static_cast<size_t>(i)], z); },
          dtype == DType::F32 ? 1e-5 : 1e-2, "the chain's per-op error bound (chainBound)");
}

TEST(GpuDynamicDims, AChainCompiledOnceIsRightAtEverySize) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  for (DType dtype : {DType::F32, DType::BF16}) {
    auto f = tg::jit(
        [](const Tensor& a, const Tensor& b) { return readmeChain(a, b); },
        {.dynamic = {{0, 0, tg::Dim("batch", 1, 64)}, {1, 0, tg::Dim("batch", 1, 64)},
                     {0, 1, tg::Dim("seq", 1, 512)}, {1, 1, tg::Dim("seq", 1, 512)}}});
    uint64_t seed = 1;
    // Each size twice in a row: the second call replays (as a CUDA graph from the function's
    // second call on), so the graph's parameters and grids change with the sizes.
    for (auto [batch, seq] : std::vector<std::pair<int64_t, int64_t>>{
             {4, 128}, {4, 128}, {3, 7}, {64, 512}, {2, 2}, {17, 31}, {1, 13}, {1, 13}, {5, 1}, {64, 509}, {3, 7}})
      checkChain(f, batch, seq, dtype, seed++);
    tg::JitReport r = f.report();
    // Sizes from 2, batch = 1, seq = 1: three variants, each compiled once.
    EXPECT_EQ(r.graphs.size(), 3u) << r.str();
    EXPECT_EQ(r.recompiles.size(), 2u) << r.str();
    ASSERT_FALSE(r.graphs.empty());
    EXPECT_EQ(r.graphs[0].symbols, "batch in [2, 64], seq in [2, 512]") << r.str();
    EXPECT_TRUE(r.graphs[0].cudaGraph) << r.str();
    EXPECT_GE(r.graphs[0].sizeChanges, 6u) << r.str();
  }
}

// Reads through broadcasts over the rows: a bias of the row length, a value of one per row;
// positions along the static dim (tg.iota; along a dim of one dynamic dim: SymbolicPlanTest).
TEST(GpuDynamicDims, BroadcastsOverTheRowsAreRightAtEverySize) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  auto fn = [](const Tensor& x, const Tensor& bias, const Tensor& scale) {
    Tensor position = tg::cast(tg::iota(x.shape(), 2, DType::I32, x.device()), DType::F32);
    return tg::tanh(x + bias) * scale - bias * 0.5f + position * 0.125f;
  };
  auto f = tg::jit(fn, {.dynamic = {{0, 0, tg::Dim("batch", 1, 64)}, {2, 0, tg::Dim("batch", 1, 64)},
                                    {0, 1, tg::Dim("seq", 1, 512)}, {2, 1, tg::Dim("seq", 1, 512)}}});
  Tensor bias = tg::randn({24}, DType::F32, 5, Device::CPU);
  Tensor dbias = bias.to(Device::CUDA);
  uint64_t seed = 40;
  for (auto [batch, seq] : std::vector<std::pair<int64_t, int64_t>>{{4, 128}, {3, 7}, {64, 512}, {2, 2}, {17, 31}, {17, 31}, {5, 509}}) {
    SCOPED_TRACE("batch " + std::to_string(batch) + ", seq " + std::to_string(seq));
    Tensor x = tg::randn({batch, seq, 24}, DType::F32, seed++, Device::CPU);
    Tensor scale = tg::randn({batch, seq, 1}, DType::F32, seed++, Device::CPU);
    Tensor dx = x.to(Device::CUDA), dscale = scale.to(Device::CUDA);
    Tensor got = f(dx, dbias, dscale);
    ASSERT_EQ(got.shape(), (tg::Shape{batch, seq, 24}));
    auto exact = tg::jit(fn);
    std::string why;
    EXPECT_TRUE(sameBits(got, exact(dx, dbias, dscale), why)) << why;
    Tolerance tol;
    tol.f32Ulps = 8;
    tol.rel = 1e-5;
    tol.abs = 1e-5;
    tol.rule = "tanh within 4 ulp, times a scale, less a bias, plus a position";
    compare(got.to(Device::CPU), fn(x, bias, scale), tol);
  }
  tg::JitReport r = f.report();
  EXPECT_EQ(r.graphs.size(), 1u) << r.str();
  ASSERT_FALSE(r.graphs.empty());
  EXPECT_EQ(r.graphs[0].kernels, 1u) << r.str();
}

// Row kernels over dynamic rows: softmax and layer_norm over rows of 64 (bf16), an RMS norm
// over rows of 1000 (f32, not a multiple of the vector width), a softmax over rows of 8192.
TEST(GpuDynamicDims, RowKernelsAreRightAtEverySize) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  auto fn = [](const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& y, const Tensor& g, const Tensor& z) {
    Tensor rms = y * tg::rsqrt(tg::mean(y * y, {-1}, true) + 1e-6f) * g;
    return std::make_tuple(tg::softmax(x, -1), tg::layer_norm(x, w, b), rms, tg::softmax(z, -1));
  };
  auto f = tg::jit(fn, {.dynamic = {{0, 0, tg::Dim("batch", 1, 64)}, {0, 1, tg::Dim("seq", 1, 512)},
                                    {3, 0, tg::Dim("tokens", 1, 4096)}, {5, 0, tg::Dim("heads", 1, 64)}}});
  Tensor w = tg::cast(tg::randn({64}, DType::F32, 1, Device::CPU), DType::BF16);
  Tensor b = tg::cast(tg::randn({64}, DType::F32, 2, Device::CPU), DType::BF16);
  Tensor g = tg::randn({1000}, DType::F32, 3, Device::CPU);
  Tensor dw = w.to(Device::CUDA), db = b.to(Device::CUDA), dg = g.to(Device::CUDA);
  uint64_t seed = 60;
  struct Sizes {
    int64_t batch, seq, tokens, heads;
  };
  for (const Sizes& z : std::vector<Sizes>{{4, 128, 100, 8}, {3, 7, 2, 2}, {64, 512, 4096, 64}, {2, 2, 1013, 5}, {17, 31, 97, 3}, {17, 31, 97, 3}}) {
    SCOPED_TRACE("batch " + std::to_string(z.batch) + ", seq " + std::to_string(z.seq) + ", tokens " +
                 std::to_string(z.tokens) + ", heads " + std::to_string(z.heads));
    Tensor x = tg::cast(tg::randn({z.batch, z.seq, 64}, DType::F32, seed++, Device::CPU) * 3.0f, DType::BF16);
    Tensor y = tg::randn({z.tokens, 1000}, DType::F32, seed++, Device::CPU);
    Tensor zz = tg::cast(tg::randn({z.heads, 8192}, DType::F32, seed++, Device::CPU) * 4.0f, DType::BF16);
    Tensor dx = x.to(Device::CUDA), dy = y.to(Device::CUDA), dz = zz.to(Device::CUDA);
    auto [s, ln, rms, big] = f(dx, dw, db, dy, dg, dz);
    auto exact = tg::jit(fn);
    auto [s2, ln2, rms2, big2] = exact(dx, dw, db, dy, dg, dz);
    std::string why;
    EXPECT_TRUE(sameBits(s, s2, why)) << "softmax: " << why;
    EXPECT_TRUE(sameBits(ln, ln2, why)) << "layer_norm: " << why;
    EXPECT_TRUE(sameBits(rms, rms2, why)) << "rms: " << why;
    EXPECT_TRUE(sameBits(big, big2, why)) << "softmax 8192: " << why;
    auto [rs, rln, rrms, rbig] = fn(x, w, b, y, g, zz);
    Tolerance bf16;
    bf16.dtypeUlps = 2;
    bf16.abs = 1e-3;
    bf16.rule = "bf16 results of f32 math: 2 ulp of bf16";
    compare(s.to(Device::CPU), rs, bf16);
    compare(ln.to(Device::CPU), rln, bf16);
    compare(big.to(Device::CPU), rbig, bf16);
    Tolerance f32;
    f32.rel = 1e-5;
    f32.abs = 1e-6;
    f32.rule = "an f32 mean of 1000 squares, rsqrt";
    compare(rms.to(Device::CPU), rrms, f32);
  }
  tg::JitReport r = f.report();
  EXPECT_EQ(r.graphs.size(), 1u) << r.str();
}

// Reads whose index arithmetic needs run-time extents: a transpose of the two dynamic dims, a
// heads split ([batch, seq, 64] as [batch, 4, seq, 16]) and its transpose back, positions along
// the middle dynamic dim, and a 2-D transpose copy ([n, 48] to [48, n]). Each compiled once
// for the ranges; at each size the same bits as the function compiled for that shape, direct
// and replayed as a CUDA graph.
TEST(GpuDynamicDims, ReadsThroughLayoutsWithRunTimeExtentsAreRightAtEverySize) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  auto swapped = [](const Tensor& x, const Tensor& y) {
    // x [batch, seq, 24], y [seq, batch, 24]
    Tensor position = tg::cast(tg::iota(x.shape(), 1, DType::I32, x.device()), DType::F32);
    return x * 0.5f + tg::transpose(y, 0, 1) + position;
  };
  auto heads = [](const Tensor& x, const Tensor& y) {
    // x [batch, seq, 64]: split in 4 heads of 16, each scaled by y [batch, seq, 64] moved the
    // same way, then back to [batch, seq, 64]
    const int64_t b = x.shape()[0], s = x.shape()[1];
    Tensor xh = tg::transpose(tg::reshape(x, {b, s, 4, 16}), 1, 2);
    Tensor yh = tg::transpose(tg::reshape(y, {b, s, 4, 16}), 1, 2);
    Tensor z = tg::exp(xh * 0.25f) * yh;  // [b, 4, s, 16]
    return std::pair<Tensor, Tensor>{z, tg::reshape(tg::transpose(z, 1, 2), {b, s, 64}) + x};
  };
  auto columns = [](const Tensor& x) { return tg::transpose(x, 0, 1); };  // [n, 48] -> [48, n]
  const tg::Dim batch("batch", 1, 32), seq("seq", 1, 300);
  auto fs = tg::jit(swapped, {.dynamic = {{0, 0, batch}, {0, 1, seq}, {1, 1, batch}, {1, 0, seq}}});
  auto fh = tg::jit(heads, {.dynamic = {{0, 0, batch}, {0, 1, seq}, {1, 0, batch}, {1, 1, seq}}});
  auto fc = tg::jit(columns, {.dynamic = {{0, 0, tg::Dim("n", 1, 20000)}}});
  uint64_t seed = 500;
  std::string why;
  for (auto [b, s] : std::vector<std::pair<int64_t, int64_t>>{{4, 128}, {4, 128}, {3, 7}, {32, 300}, {2, 2}, {17, 31}, {5, 293}, {5, 293}, {3, 7}}) {
    SCOPED_TRACE("batch " + std::to_string(b) + ", seq " + std::to_string(s));
    Tensor x = tg::randn({b, s, 24}, DType::F32, seed++, Device::CUDA);
    Tensor y = tg::randn({s, b, 24}, DType::F32, seed++, Device::CUDA);
    auto exactS = tg::jit(swapped);
    EXPECT_TRUE(sameBits(fs(x, y), exactS(x, y), why)) << "swapped: " << why;
    Tensor p = tg::randn({b, s, 64}, DType::BF16, seed++, Device::CUDA);
    Tensor q = tg::randn({b, s, 64}, DType::BF16, seed++, Device::CUDA);
    auto exactH = tg::jit(heads);
    auto [got0, got1] = fh(p, q);
    auto [want0, want1] = exactH(p, q);
    EXPECT_EQ(got0.shape(), (tg::Shape{b, 4, s, 16}));
    EXPECT_TRUE(sameBits(got0, want0, why)) << "heads: " << why;
    EXPECT_TRUE(sameBits(got1, want1, why)) << "heads back: " << why;
    const int64_t n = b * s + 1;
    Tensor c = tg::randn({n, 48}, DType::BF16, seed++, Device::CUDA);
    auto exactC = tg::jit(columns);
    EXPECT_TRUE(sameBits(fc(c), exactC(c), why)) << "columns, n = " << n << ": " << why;
  }
  for (const tg::JitReport& r : {fs.report(), fh.report(), fc.report()}) {
    ASSERT_FALSE(r.graphs.empty()) << r.str();
    EXPECT_EQ(r.graphs.size(), 1u) << r.str();
    EXPECT_FALSE(r.graphs[0].symbols.empty()) << r.str();
    EXPECT_TRUE(r.graphs[0].cudaGraph) << r.str();
  }
}

/// bf16 results against a compile whose attention takes other kernels (the decode-sized ones
/// at 16 query rows or fewer): 4 ulp of bf16.
Tolerance otherAttentionKernels() {
  Tolerance bf16;
  bf16.dtypeUlps = 4;
  bf16.abs = 2e-2;
  bf16.rule = "bf16 results, other attention kernels: 4 ulp of bf16";
  return bf16;
}

// A pre-norm transformer block (examples/graphs.h) compiled once for batch in [1, 16] x seq in
// [1, 2048]: layer_norm, the projections (wgmma, with their small-tile variants), causal
// flash attention over the heads split, the residual read through a reshape in the output
// projection's epilogue, the MLP. Above 16 tokens a sequence, where the function compiled for
// the exact shape takes the flash kernel too, the same bits as that compile; at 16 and fewer
// (where that compile takes the decode-sized kernels) within bf16 rounding of it.
TEST(GpuDynamicDims, ATransformerBlockIsRightAtEverySize) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  const tg_graphs::BlockWeights w = tg_graphs::block_weights(256, 4, Device::CUDA);
  auto fn = [&w](const Tensor& x) { return tg_graphs::transformer_block(x, w); };
  auto f = tg::jit(fn, {.dynamic = {{0, 0, tg::Dim("batch", 1, 16)}, {0, 1, tg::Dim("seq", 1, 2048)}}});
  uint64_t seed = 900;
  for (auto [batch, seq] : std::vector<std::pair<int64_t, int64_t>>{
           {2, 333}, {3, 17}, {16, 2048}, {5, 191}, {2, 193}, {7, 1000}, {2, 5}, {3, 16}, {4, 1531}}) {
    SCOPED_TRACE("batch " + std::to_string(batch) + ", seq " + std::to_string(seq));
    Tensor x = tg::randn({batch, seq, 256}, DType::BF16, seed++, Device::CUDA);
    Tensor got = f(x), again = f(x);
    auto exact = tg::jit(fn);
    Tensor want = exact(x);
    std::string why;
    EXPECT_TRUE(sameBits(got, again, why)) << "replayed: " << why;
    if (seq > 16) {
      EXPECT_TRUE(sameBits(got, want, why)) << why;
    } else {
      const Tolerance bf16 = otherAttentionKernels();
      compare(got.to(Device::CPU), want.to(Device::CPU), bf16);
    }
  }
  tg::JitReport r = f.report();
  EXPECT_EQ(r.graphs.size(), 1u) << r.str();
}

// The decoder's forward pass (examples/llama_model.h) as a prefill compiled once for prompts
// of 1..512 tokens, the caches donated: the embedding gather, rotary concats, in-place cache
// updates at a device position, flash attention over the cache, x[T - 1] and pos + T all over
// T. At each prompt length the logits, the caches and the next position equal the function
// compiled for that length: bit for bit above 16 tokens, where that compile takes the same
// kernels; below, it takes skinny matmuls and decode-sized attention, which sum in another
// order, so the two differ by bf16 roundings compounded over two layers (on the H100: 1 ulp
// in the keys at 9 tokens, 0.8% norm-wise and 0.033 at worst in logits of about 1 at 5).
// One compile serves the lengths from 2.
TEST(GpuDynamicDims, ADecoderPrefillIsRightAtEveryPromptLength) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  const tg_llama::Config c{2, 256, 4, 2, 512, 1000, 512, 64};
  const tg_llama::Model model = tg_llama::makeModel(c, Device::CUDA);
  auto fn = [&model](const Tensor& tokens, const Tensor& pos, const Tensor& kc, const Tensor& vc) {
    return tg_llama::forward(model, tokens, pos, kc, vc);
  };
  auto dynamic = tg::jit(fn, {.donate = {2, 3}, .dynamic = {{0, 0, tg::Dim("T", 1, 512)}}});
  const tg::Shape cache = {c.layers, c.kvHeads, c.maxSeq(), c.headDim()};
  uint64_t seed = 1200;
  for (auto [T, start] : std::vector<std::pair<int64_t, int32_t>>{
           {9, 0}, {17, 3}, {100, 0}, {333, 200}, {512, 0}, {2, 7}, {5, 0}, {257, 64}}) {
    SCOPED_TRACE("T " + std::to_string(T) + ", pos " + std::to_string(start));
    std::vector<int32_t> ids(static_cast<size_t>(T));
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>((seed * 31 + i * 7919) % 1000);
    const Tensor tokens = tg::from_vector(ids, {T}).to(Device::CUDA);
    const Tensor pos = tg::from_vector(std::vector<int32_t>{start}, {}).to(Device::CUDA);
    // Each call consumes its caches: the same random caches (counter-based: equal for one
    // seed) made twice.
    const uint64_t ks = seed++, vs = seed++;
    auto caches = [&] {
      return std::make_pair(tg::randn(cache, DType::BF16, ks, Device::CUDA), tg::randn(cache, DType::BF16, vs, Device::CUDA));
    };
    auto exact = tg::jit(fn, {.donate = {2, 3}});
    auto [kc1, vc1] = caches();
    auto [kc2, vc2] = caches();
    auto [n1, p1, k1, v1, l1] = dynamic(tokens, pos, kc1, vc1);
    auto [n2, p2, k2, v2, l2] = exact(tokens, pos, kc2, vc2);
    std::string why;
    EXPECT_TRUE(sameBits(p1, p2, why)) << "pos + T: " << why;
    if (T > 16) {
      EXPECT_TRUE(sameBits(l1, l2, why)) << "logits: " << why;
      EXPECT_TRUE(sameBits(k1, k2, why)) << "keys: " << why;
      EXPECT_TRUE(sameBits(v1, v2, why)) << "values: " << why;
      EXPECT_TRUE(sameBits(n1, n2, why)) << "next token: " << why;
    } else {
      // The caches: one projection and rope from the same inputs (a few bf16 roundings).
      const Tolerance bf16 = otherAttentionKernels();
      compare(k1.to(Device::CPU), k2.to(Device::CPU), bf16);
      compare(v1.to(Device::CPU), v2.to(Device::CPU), bf16);
      // The logits: two layers of those differences, each through a residual add, norms and
      // the head. Element-wise 8 bf16 epsilons (2^-8) of the largest logit, 4 norm-wise.
      const Tensor want = l2.to(Device::CPU);
      Tolerance logits;
      logits.abs = 8 * std::ldexp(1.0, -8) * maxAbs(want);
      logits.norm = 4 * std::ldexp(1.0, -8);
      logits.rule = "bf16 logits after two layers summed in other orders: 8 eps of max |logit|, 4 eps norm-wise";
      compare(l1.to(Device::CPU), want, logits);
    }
  }
  tg::JitReport r = dynamic.report();
  EXPECT_EQ(r.graphs.size(), 1u) << r.str();
}

// A graph break over dynamic dims (a sum read on the host picks the next ops): each segment
// structure is fitted from the calls' sizes and compiled once for the range (SegmentFit.h), a
// symbolic plan run at each call's sizes; every result against the CPU reference.
TEST(GpuDynamicDims, SegmentsBetweenGraphBreaksCompileOnceForTheRange) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  auto reference = [](const Tensor& x) {
    Tensor y = tg::tanh(x) * 2.0f;
    const float m = tg::sum(y).item<float>();
    Tensor z = m > 0 ? y * 3.0f + 1.0f : y - 1.0f;
    return tg::softmax(z, -1);
  };
  auto f = tg::jit(reference, {.dynamic = {{0, 0, tg::Dim("rows", 1, 4096)}}});
  uint64_t seed = 1300;
  const std::vector<int64_t> sizes = {5, 9, 17, 33, 64, 100, 257, 2, 3, 4095, 4096, 77, 1, 128, 13, 3000, 7};
  for (size_t i = 0; i < sizes.size(); ++i) {
    SCOPED_TRACE("rows " + std::to_string(sizes[i]));
    // Sums far from 0 (every third negative), so that the device and the reference pick the
    // same branch.
    Tensor x = tg::randn({sizes[i], 256}, DType::F32, seed++, Device::CPU) + (i % 3 == 2 ? -2.0f : 2.0f);
    const Tensor got = f(x.to(Device::CUDA)).to(Device::CPU);
    Tolerance tol;
    tol.f32Ulps = 16;
    tol.rel = 1e-5;
    tol.abs = 1e-6;
    tol.rule = "f32 tanh, exp and the softmax's sum on the device against the CPU reference";
    compare(got, reference(x), tol);
  }
  const tg::JitReport r = f.report();
  size_t once = 0;
  for (const std::string& line : r.symbolicSizes) once += line.find("compiled once for every size") != std::string::npos;
  EXPECT_GE(once, 3u) << r.str();
}

TEST(GpuDynamicDims, ASweepOfSizesCompilesOncePerVariant) {
  if (!tg::cuda_available()) GTEST_SKIP() << "no GPU";
  auto f = tg::jit([](const Tensor& a, const Tensor& b) { return readmeChain(a, b); },
                   {.dynamic = {{0, 0, tg::Dim("batch", 1, 64)}, {1, 0, tg::Dim("batch", 1, 64)},
                                {0, 1, tg::Dim("seq", 1, 512)}, {1, 1, tg::Dim("seq", 1, 512)}}});
  uint64_t seed = 100;
  for (int64_t batch = 2; batch <= 64; ++batch)
    for (int64_t seq = 17; seq <= 17 * 16; seq += 17) {
      // (Made on the device: an eager op at each of 1008 shapes would compile for each.)
      Tensor x = tg::randn({batch, seq, 24}, DType::F32, seed++, Device::CUDA);
      Tensor y = tg::randn({batch, seq, 24}, DType::F32, seed++, Device::CUDA);
      Tensor got = f(x, y);
      if (batch % 16 == 5 && seq % 85 == 0) {  // a few checked in full
        std::string why;
        auto exact = tg::jit([](const Tensor& a, const Tensor& b) { return readmeChain(a, b); });
        EXPECT_TRUE(sameBits(got, exact(x, y), why)) << "batch " << batch << ", seq " << seq << ": " << why;
      }
    }
  tg::JitReport r = f.report();
  EXPECT_EQ(r.graphs.size(), 1u) << r.str();
  EXPECT_TRUE(r.recompiles.empty()) << r.str();
  EXPECT_EQ(r.calls, 63u * 16u);
}

}  // namespace
