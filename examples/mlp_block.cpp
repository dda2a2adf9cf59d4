//===- mlp_block.cpp - A transformer MLP block, traced and run by tg ------===//
//
// The README's first command runs this: it traces a pre-norm GELU MLP block
// (layer_norm -> X W1^T + b1 -> GELU -> (.) W2^T + b2 -> residual add), prints the traced tg
// IR, runs it, checks it against eager execution of the same lambda, and prints a few values.
// On a GPU the f32 matmuls multiply as TF32 (10-bit mantissas), and the jit, which folds the
// transposes into its matmuls and fuses bias + GELU into them, may take another tensor-core
// kernel than op-by-op eager execution (on an H200: wgmma against mma.sync, whose sums run in
// another order), so the two agree to TF32's precision rather than bit for bit; on the CPU
// both are plain f32.
//
//===----------------------------------------------------------------------===//
#include <tg/tg.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

int main() {
  const int64_t tokens = 64, dim = 256, hidden = 1024;
  using tg::DType;

  tg::Tensor x = tg::randn({tokens, dim}, DType::F32, /*seed=*/1);
  // Weights, scaled as a trained layer would be (variance ~ 1 / fan_in).
  tg::Tensor w1 = tg::randn({hidden, dim}, DType::F32, 2) * (1.0 / std::sqrt(double(dim)));
  tg::Tensor b1 = tg::randn({hidden}, DType::F32, 3) * 0.1;
  tg::Tensor w2 = tg::randn({dim, hidden}, DType::F32, 4) * (1.0 / std::sqrt(double(hidden)));
  tg::Tensor b2 = tg::randn({dim}, DType::F32, 5) * 0.1;
  tg::Tensor gamma = tg::ones({dim});
  tg::Tensor beta = tg::zeros({dim});

  // The block. Weights are captured: they become implicit inputs of the compiled graph.
  auto block = [&](const tg::Tensor& x) {
    tg::Tensor h = tg::layer_norm(x, gamma, beta);
    tg::Tensor u = tg::gelu(tg::matmul(h, tg::transpose(w1, 0, 1)) + b1, tg::Gelu::Tanh);
    return x + tg::matmul(u, tg::transpose(w2, 0, 1)) + b2;
  };
  auto compiled = tg::jit(block, {.name = "mlp_block"});

  auto t0 = std::chrono::steady_clock::now();
  tg::Tensor y = compiled(x);  // first call: trace, import, canonicalize, run
  auto t1 = std::chrono::steady_clock::now();
  tg::Tensor y2 = compiled(x);  // second call: replays the compiled graph, no tracing
  auto t2 = std::chrono::steady_clock::now();

  std::cout << "== traced tg IR ==\n" << compiled.ir() << "\n";
  std::cout << "== result ==\n" << y << "\n";

  // Check against eager execution of the same lambda.
  std::vector<float> got = y.to_vector(), again = y2.to_vector(), eager = block(x).to_vector();
  // Allowed: 2^-8 (four TF32 units) relative to 1 + |eager| on CUDA; 1e-5 on the CPU. A wrong
  // kernel misses by about the values themselves.
  const bool tf32 = y.device() == tg::Device::CUDA;
  const double tolerance = tf32 ? std::ldexp(1.0, -8) : 1e-5;
  double maxDiff = 0, worst = 0;  // worst: max |diff| / (1 + |eager|) on CUDA, max |diff| on CPU
  for (size_t i = 0; i < got.size(); ++i) {
    const double d = std::max(std::fabs(got[i] - eager[i]), std::fabs(again[i] - eager[i]));
    maxDiff = std::max(maxDiff, d);
    worst = std::max(worst, tf32 ? d / (1.0 + std::fabs(eager[i])) : d);
  }
  auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
  std::printf("device: %s | first call (trace + compile + run): %.1f ms | replay: %.1f ms\n",
              tg::device_name(y.device()), ms(t1 - t0), ms(t2 - t1));
  std::printf("jit vs eager: max |diff| = %.3g over %zu values (allowed: %s%.3g)\n", maxDiff, got.size(),
              tf32 ? "TF32 matmuls, |diff| / (1 + |eager|) <= " : "", tolerance);
  if (!(worst <= tolerance)) {
    std::printf("MISMATCH between jit and eager results\n");
    return 1;
  }
  return 0;
}
