//===- graph_break.cpp - A convergence loop, the naive way and the tg way -===//
//
// Newton's iteration for sqrt(a), elementwise, until the largest update is below a tolerance.
//
// Naive: `if (err.item() < tol) break;` inside the jit function. Every iteration reads a
// value the device has not computed yet: a graph break and a host/device sync point, each
// reported with its line.
//
// tg way: a break-free jit step (the next iterate and its error, as device tensors), checked
// with tg::check (asynchronous, never breaks the graph), and the host reads the error only
// every 8 steps. Prints both reports and times both.
//
//===----------------------------------------------------------------------===//
#include <tg/tg.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <tuple>

namespace {

using Clock = std::chrono::steady_clock;
constexpr float kTol = 1e-5f;
constexpr int kMaxIters = 64;

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace

int main() {
  const int64_t n = tg::cuda_available() ? (int64_t(1) << 22) : (int64_t(1) << 12);
  tg::Tensor a = tg::rand({n}, tg::DType::F32, /*seed=*/1) * 100.0f + 1.0f;  // in [1, 101)

  // --- naive: a data-dependent `if` on the device value, every iteration ---
  auto naive = tg::jit(
      [](const tg::Tensor& a) {
        tg::Tensor x = a;
        for (int i = 0; i < kMaxIters; ++i) {
          tg::Tensor next = 0.5f * (x + a / x);
          tg::Tensor err = tg::max(tg::abs(next - x));
          x = next;
          if (err.item() < kTol) break;  // graph break + sync point, every iteration
        }
        return x;
      },
      {.name = "sqrt_naive"});

  // --- tg way: one break-free step; read the error every 8 steps ---
  auto step = tg::jit(
      [](const tg::Tensor& x, const tg::Tensor& a) {
        tg::Tensor next = 0.5f * (x + a / x);
        tg::check(next > 0.0f, "Newton iterates for sqrt stay positive");  // async, no break
        return std::make_tuple(next, tg::max(tg::abs(next - x)));
      },
      {.name = "sqrt_step"});
  auto tgWay = [&](const tg::Tensor& a) {
    tg::Tensor x = a, err;
    for (int i = 0; i < kMaxIters; i += 8) {
      for (int k = 0; k < 8; ++k) std::tie(x, err) = step(x, a);
      if (err.item() < kTol) break;  // one sync point per 8 steps, outside the jit function
    }
    return x;
  };

  for (int warm = 0; warm < 2; ++warm) {  // the first round compiles; time the second
    // Timed: the loops up to their results on the device (tg::synchronize waits for them),
    // not the 16 MiB read-back that both share.
    auto t0 = Clock::now();
    tg::Tensor naiveResult = naive(a);
    tg::synchronize();
    double naiveMs = msSince(t0);
    t0 = Clock::now();
    tg::Tensor tgResult = tgWay(a);
    tg::synchronize();
    double tgMs = msSince(t0);
    if (warm == 0) continue;
    std::vector<float> naiveOut = naiveResult.to_vector(), tgOut = tgResult.to_vector();

    std::vector<float> av = a.to_vector();
    double worst = 0;
    for (size_t i = 0; i < av.size(); ++i) {
      double want = std::sqrt(double(av[i]));
      worst = std::max({worst, std::abs(naiveOut[i] - want) / want, std::abs(tgOut[i] - want) / want});
    }
    std::cout << "== naive ==\n" << naive.report() << "\n";
    std::cout << "== tg way (the step function) ==\n" << step.report() << "\n";
    std::cout << "== sync points outside jit functions ==\n";
    for (const tg::JitReport::Event& e : tg::sync_points())
      std::cout << "  " << e.loc.str() << ": " << e.what << " x" << e.count << "\n";
    std::printf("\n%s, %lld elements: naive %.2f ms, tg way %.2f ms (%.1fx); max relative error "
                "vs sqrt %.2g\n",
                tg::device_name(a.device()), static_cast<long long>(n), naiveMs, tgMs,
                naiveMs / tgMs, worst);
    if (!(worst < 1e-5)) {
      std::printf("MISMATCH\n");
      return 1;
    }
  }
  return 0;
}
