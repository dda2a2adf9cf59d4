//===- graphs.h - The graphs tg's benchmarks, tools and tests share -------===//
//
// Written against the public API only. benchmarks/compare_torch.py times the same graphs in
// PyTorch; keep the two in step.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <tg/tg.h>

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

}  // namespace tg_graphs
