//===- llama_model.h - The Llama-style decoder of examples/llama_decoder.cpp ===//
//
// Written only with tg's public API: token embedding (gather), RMSNorm, rotary position
// embedding (sin/cos of positions from iota), grouped-query attention (more query heads than
// key/value heads) over a static-size KV cache with a causal mask computed from the
// device-side position, a SwiGLU MLP, a final norm, the output projection and greedy argmax.
// `forward` is one pass over T tokens at a device position, prefill (T prompt tokens) and
// decode (T = 1) alike. The example runs it; the tests and benchmarks compile it too (its
// prefill over a dynamic prompt length: issue 18).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <tg/tg.h>

#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

namespace tg_llama {

using tg::DType;
using tg::Tensor;

struct Config {
  int64_t layers, dim, heads, kvHeads, ffn, vocab, prompt, generate;
  double ropeTheta = 10000.0, eps = 1e-5;
  int64_t headDim() const { return dim / heads; }
  int64_t maxSeq() const { return prompt + generate; }
};

inline const Config kBig{12, 2048, 16, 4, 5632, 32000, 512, 128};
inline const Config kSmall{2, 64, 4, 2, 128, 256, 8, 8};

struct Layer {
  Tensor attnNorm, wqkv, wo, mlpNorm, wGateUp, wDown;
};

struct Model {
  Config c;
  Tensor embed, finalNorm, lmHead;
  std::vector<Layer> layers;
  int64_t weightBytes = 0;  ///< read per decode step (everything but the embedding table)
};

/// randn scaled by 1/sqrt(fanIn), in bf16.
inline Tensor weight(tg::Shape shape, uint64_t seed, tg::Device device) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(shape.back()));
  return tg::cast(tg::randn(shape, DType::F32, seed, device) * scale, DType::BF16);
}

inline Tensor normWeight(int64_t dim, uint64_t seed, tg::Device device) {
  return tg::cast(tg::randn({dim}, DType::F32, seed, device) * 0.1 + 1.0, DType::BF16);
}

inline Model makeModel(const Config& c, tg::Device device) {
  Model m{c, {}, {}, {}, {}, 0};
  const int64_t qkv = (c.heads + 2 * c.kvHeads) * c.headDim();
  m.embed = weight({c.vocab, c.dim}, 1, device);
  m.finalNorm = normWeight(c.dim, 2, device);
  m.lmHead = weight({c.vocab, c.dim}, 3, device);
  for (int64_t l = 0; l < c.layers; ++l) {
    const uint64_t s = 100 + 10 * static_cast<uint64_t>(l);
    m.layers.push_back({normWeight(c.dim, s, device), weight({qkv, c.dim}, s + 1, device),
                        weight({c.dim, c.heads * c.headDim()}, s + 2, device), normWeight(c.dim, s + 3, device),
                        weight({2 * c.ffn, c.dim}, s + 4, device), weight({c.dim, c.ffn}, s + 5, device)});
  }
  auto bytes = [](const Tensor& t) { return t.numel() * 2; };
  m.weightBytes = bytes(m.finalNorm) + bytes(m.lmHead);
  for (const Layer& l : m.layers)
    m.weightBytes += bytes(l.attnNorm) + bytes(l.wqkv) + bytes(l.wo) + bytes(l.mlpNorm) + bytes(l.wGateUp) + bytes(l.wDown);
  return m;
}

/// x * rsqrt(mean(x^2) + eps) * w over the last dim, in f32; the result in bf16.
inline Tensor rmsNorm(const Tensor& x, const Tensor& w, double eps) {
  Tensor xf = tg::cast(x, DType::F32);
  Tensor scale = tg::rsqrt(tg::mean(xf * xf, {-1}, true) + eps);
  return tg::cast(xf * scale * tg::cast(w, DType::F32), DType::BF16);
}

/// Rotary embedding of x [heads, T, headDim] (rotate-half form) with cos/sin [T, headDim / 2].
inline Tensor rope(const Tensor& x, const Tensor& cos, const Tensor& sin) {
  const int64_t half = x.shape().back() / 2;
  Tensor xf = tg::cast(x, DType::F32);
  Tensor x1 = tg::slice(xf, -1, 0, half), x2 = tg::slice(xf, -1, half);
  Tensor c = tg::concat({cos, cos}, -1), s = tg::concat({sin, sin}, -1);
  return tg::cast(xf * c + tg::concat({-x2, x1}, -1) * s, DType::BF16);
}

/// One forward pass over `tokens` [T] at position `pos` ([] i32): the next token [1] (argmax of
/// the last position's logits), pos + T, the caches [layers, kvHeads, maxSeq, headDim] with
/// this pass's keys and values written at positions pos .. pos + T - 1, and the last
/// position's logits [1, vocab] (bf16).
inline std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> forward(const Model& m, const Tensor& tokens, const Tensor& pos,
                                                   Tensor kc, Tensor vc) {
  const Config& c = m.c;
  const int64_t T = tokens.shape()[0], hd = c.headDim(), S = c.maxSeq(), group = c.heads / c.kvHeads;
  const tg::Device dev = tokens.device();
  Tensor x = tg::embedding(m.embed, tokens);  // [T, dim]
  // Positions pos + t, and the rotary angles (pos + t) * theta^(-2i / hd).
  Tensor positions = tg::iota({T}, 0, DType::I32, dev) + pos;
  Tensor invFreq = tg::exp2(tg::arange(hd / 2, DType::F32, dev) * (-2.0 * std::log2(c.ropeTheta) / hd));
  Tensor angles = tg::reshape(tg::cast(positions, DType::F32), {T, 1}) * invFreq;
  Tensor cos = tg::cos(angles), sin = tg::sin(angles);
  // Causal mask over the cache: key position s is visible to query (g, t) when s <= pos + t.
  Tensor queryPos = tg::reshape(tg::iota({group, T}, 1, DType::I32, dev), {1, group * T, 1}) + pos;
  Tensor visible = tg::le(tg::iota({1, 1, S}, 2, DType::I32, dev), queryPos);
  const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
  for (int64_t l = 0; l < c.layers; ++l) {
    const Layer& w = m.layers[static_cast<size_t>(l)];
    Tensor h = rmsNorm(x, w.attnNorm, c.eps);
    std::vector<Tensor> qkv = tg::split(tg::matmul(h, tg::transpose(w.wqkv, 0, 1)),
                                        {c.heads * hd, c.kvHeads * hd, c.kvHeads * hd}, -1);
    Tensor q = rope(tg::transpose(tg::reshape(qkv[0], {T, c.heads, hd}), 0, 1), cos, sin);    // [H, T, hd]
    Tensor k = rope(tg::transpose(tg::reshape(qkv[1], {T, c.kvHeads, hd}), 0, 1), cos, sin);  // [KV, T, hd]
    Tensor v = tg::transpose(tg::reshape(qkv[2], {T, c.kvHeads, hd}), 0, 1);
    kc = tg::dynamic_update_slice(kc, tg::reshape(k, {1, c.kvHeads, T, hd}), 2, pos, {l, 0, 0, 0});
    vc = tg::dynamic_update_slice(vc, tg::reshape(v, {1, c.kvHeads, T, hd}), 2, pos, {l, 0, 0, 0});
    Tensor keys = tg::reshape(tg::slice(kc, 0, l, l + 1), {c.kvHeads, S, hd});
    Tensor values = tg::reshape(tg::slice(vc, 0, l, l + 1), {c.kvHeads, S, hd});
    // Grouped-query attention: query head kv * group + g uses key/value head kv.
    Tensor scores = tg::matmul(tg::reshape(q, {c.kvHeads, group * T, hd}), tg::transpose(keys, 1, 2));
    scores = tg::where(visible, tg::cast(scores, DType::F32) * scale, -INFINITY);
    Tensor p = tg::cast(tg::softmax(scores, -1), DType::BF16);
    Tensor o = tg::reshape(tg::matmul(p, values), {c.heads, T, hd});
    o = tg::reshape(tg::transpose(o, 0, 1), {T, c.heads * hd});
    x = x + tg::matmul(o, tg::transpose(w.wo, 0, 1));
    std::vector<Tensor> gateUp = tg::split(tg::matmul(rmsNorm(x, w.mlpNorm, c.eps), tg::transpose(w.wGateUp, 0, 1)),
                                           {c.ffn, c.ffn}, -1);
    Tensor act = tg::cast(tg::silu(tg::cast(gateUp[0], DType::F32)) * tg::cast(gateUp[1], DType::F32), DType::BF16);
    x = x + tg::matmul(act, tg::transpose(w.wDown, 0, 1));
  }
  Tensor last = tg::slice(rmsNorm(x, m.finalNorm, c.eps), 0, T - 1);  // [1, dim]
  Tensor logits = tg::matmul(last, tg::transpose(m.lmHead, 0, 1));     // [1, vocab]
  Tensor next = tg::argmax(tg::reshape(logits, {c.vocab}), 0, true);   // [1] i32
  return {next, pos + static_cast<int32_t>(T), kc, vc, logits};
}

}  // namespace tg_llama
