//===- graphs.h - The graphs tg's benchmarks, tools and tests share -------===//
//
// Written against the public API only. benchmarks/compare_torch.py times the same graphs in
// PyTorch; keep the two in step.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <tg/tg.h>

#include <cmath>

namespace tg_graphs {

/// The elementwise chain of the README (ANCHORS' "8-op chain"): 2 inputs, 1 output; tanh,
/// sigmoid and exp per element.
inline tg::Tensor chain8(const tg::Tensor& x, const tg::Tensor& y) {
  tg::Tensor t = tg::tanh(x * 1.5f + y) * tg::sigmoid(y);
  return tg::exp(-(t * t)) * y + 1.0f;
}

/// GELU, tanh approximation.
inline tg::Tensor gelu(const tg::Tensor& x) { return tg::gelu(x, tg::Gelu::Tanh); }

/// x[M, N] + bias[N], then GELU: the bias is broadcast along the rows.
inline tg::Tensor bias_gelu(const tg::Tensor& x, const tg::Tensor& bias) {
  return tg::gelu(x + bias, tg::Gelu::Tanh);
}

/// 32 elementwise ops on one small tensor: launch-bound when not fused.
inline tg::Tensor chain32(tg::Tensor x) {
  for (int i = 0; i < 8; ++i) x = tg::tanh(x * 0.9f + 0.1f) - 0.05f;
  return x;
}

/// Row softmax.
inline tg::Tensor softmax_rows(const tg::Tensor& x) { return tg::softmax(x, -1); }

/// layer_norm over the last dim, with weight and bias of the row length.
inline tg::Tensor layer_norm_rows(const tg::Tensor& x, const tg::Tensor& w, const tg::Tensor& b) {
  return tg::layer_norm(x, w, b);
}

/// RMSNorm written from primitives: x * rsqrt(mean(x^2) + eps) * w.
inline tg::Tensor rmsnorm_rows(const tg::Tensor& x, const tg::Tensor& w) {
  return x * tg::rsqrt(tg::mean(x * x, {-1}, true) + 1e-6) * w;
}

/// X @ W^T + b, then GELU: a transformer MLP layer.
inline tg::Tensor mlp(const tg::Tensor& x, const tg::Tensor& w, const tg::Tensor& b) {
  return tg::gelu(tg::matmul(x, tg::transpose(w, 0, 1)) + b, tg::Gelu::Tanh);
}

/// Causal self-attention as a transformer block writes it, from its fused projection:
/// qkv [B, S, 3 * heads * hd] split into q, k, v [B, heads, S, hd] (a reshape, slices and
/// transposes), softmax(q k^T / sqrt(hd) with a causal mask) v, the heads merged back into
/// [B, S, heads * hd].
inline tg::Tensor causal_self_attention(const tg::Tensor& qkv, int64_t heads) {
  const int64_t B = qkv.shape()[0], S = qkv.shape()[1], hd = qkv.shape()[2] / (3 * heads);
  const tg::Tensor split = tg::reshape(qkv, {B, S, 3, heads, hd});
  auto head = [&](int64_t i) {
    return tg::transpose(tg::reshape(tg::slice(split, 2, i, i + 1), {B, S, heads, hd}), 1, 2);
  };
  const tg::Tensor q = head(0), k = head(1), v = head(2);
  tg::Tensor s = tg::cast(tg::matmul(q, tg::transpose(k, 2, 3)), tg::DType::F32) * (1.0 / std::sqrt(double(hd)));
  const tg::Tensor row = tg::iota({1, 1, S, 1}, 2, tg::DType::I32, qkv.device());
  const tg::Tensor key = tg::iota({1, 1, 1, S}, 3, tg::DType::I32, qkv.device());
  s = tg::where(tg::le(key, row), s, -INFINITY);
  const tg::Tensor o = tg::matmul(tg::cast(tg::softmax(s, -1), qkv.dtype()), v);
  return tg::reshape(tg::transpose(o, 1, 2), {B, S, heads * hd});
}

/// The weights of a pre-norm transformer block of width d (bf16): the fused q, k, v
/// projection, the output projection, the MLP's two layers (4 d wide) and two layer norms.
struct BlockWeights {
  tg::Tensor wqkv, wo, w1, w2, g1, b1, g2, b2;
  int64_t heads = 1;
};

inline BlockWeights block_weights(int64_t d, int64_t heads, tg::Device device, uint64_t seed = 1) {
  auto w = [&](tg::Shape shape, uint64_t s) {
    return tg::cast(tg::randn(shape, tg::DType::F32, seed + s, device) * (1.0 / std::sqrt(double(shape.back()))),
                    tg::DType::BF16);
  };
  auto norm = [&](uint64_t s, double mean) {
    return tg::cast(tg::randn({d}, tg::DType::F32, seed + s, device) * 0.1 + mean, tg::DType::BF16);
  };
  return {w({3 * d, d}, 1), w({d, d}, 2), w({4 * d, d}, 3), w({d, 4 * d}, 4), norm(5, 1.0), norm(6, 0.0),
          norm(7, 1.0),     norm(8, 0.0), heads};
}

/// A pre-norm transformer block over x [B, S, d]: x + attention(layer_norm(x)) (causal, the
/// projections as matmuls over the B * S tokens), then + mlp(layer_norm(.)) (GELU).
inline tg::Tensor transformer_block(const tg::Tensor& x, const BlockWeights& w) {
  const int64_t B = x.shape()[0], S = x.shape()[1], d = x.shape()[2];
  auto linear = [&](const tg::Tensor& t, const tg::Tensor& weight) {
    return tg::matmul(tg::reshape(t, {B * S, t.shape().back()}), tg::transpose(weight, 0, 1));
  };
  const tg::Tensor qkv = tg::reshape(linear(tg::layer_norm(x, w.g1, w.b1), w.wqkv), {B, S, 3 * d});
  const tg::Tensor h = x + tg::reshape(linear(causal_self_attention(qkv, w.heads), w.wo), {B, S, d});
  const tg::Tensor m = tg::gelu(linear(tg::layer_norm(h, w.g2, w.b2), w.w1), tg::Gelu::Tanh);
  return h + tg::reshape(tg::matmul(m, tg::transpose(w.w2, 0, 1)), {B, S, d});
}

}  // namespace tg_graphs
