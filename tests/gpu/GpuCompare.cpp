//===- GpuCompare.cpp - Comparing GPU results with the CPU reference ------===//
#include "GpuCompare.h"

#include "tg/Runtime/Gpu.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace tggpu {

int mantissaBits(DType d) { return d == DType::F32 ? 24 : d == DType::F16 ? 11 : 8; }

/// One unit in the last place of `d` at magnitude `v` (subnormals included).
double ulpOf(DType d, double v) {
  const int minExp = d == DType::F16 ? -14 : -126;
  const int e = v == 0 || !std::isfinite(v) ? minExp : std::max(std::ilogb(v), minExp);
  return std::ldexp(1.0, e - (mantissaBits(d) - 1));
}


/// Compares `got` (any device) with the CPU reference `ref` element by element against
/// `bound(i, r_i)` and norm-wise against `norm` (0: not checked). Integers and bools must be
/// equal. Returns false (after reporting) on a mismatch.
bool compare(const Tensor& got, const Tensor& ref,
             const std::function<double(int64_t, double)>& bound, double norm,
             const std::string& rule) {
  if (got.dtype() != ref.dtype() || got.shape() != ref.shape()) {
    ADD_FAILURE() << "result type " << tg::dtype_name(got.dtype()) << tg::format_shape(got.shape())
                  << " differs from the reference's " << tg::dtype_name(ref.dtype())
                  << tg::format_shape(ref.shape());
    return false;
  }
  if (!tg::is_floating(ref.dtype())) {
    std::vector<int32_t> g = got.to_vector<int32_t>(), r = ref.to_vector<int32_t>();
    int64_t bad = 0, first = -1;
    for (size_t i = 0; i < r.size(); ++i)
      if (g[i] != r[i] && bad++ == 0) first = static_cast<int64_t>(i);
    if (bad) {
      ADD_FAILURE() << bad << " of " << r.size() << " elements differ (" << rule << "); first at "
                    << first << ": got " << g[first] << ", want " << r[first];
      return false;
    }
    return true;
  }
  std::vector<float> g = got.to_vector<float>(), r = ref.to_vector<float>();
  int64_t bad = 0, nans = 0, worst = -1;
  double worstRatio = 0, maxAbsErr = 0, sumSqErr = 0, sumSqRef = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    const double gi = g[i], ri = r[i];
    if (std::isnan(gi) || std::isnan(ri)) {
      if (nans++ == 0 && worst < 0) worst = static_cast<int64_t>(i);
      continue;
    }
    if (std::isinf(ri) || std::isinf(gi)) {
      if (gi != ri) {
        ++bad;
        worstRatio = std::numeric_limits<double>::infinity();
        worst = static_cast<int64_t>(i);
      }
      continue;
    }
    const double err = std::fabs(gi - ri);
    const double b = bound(static_cast<int64_t>(i), ri);
    maxAbsErr = std::max(maxAbsErr, err);
    sumSqErr += err * err;
    sumSqRef += ri * ri;
    if (err > b) {
      ++bad;
      const double ratio = b > 0 ? err / b : std::numeric_limits<double>::infinity();
      if (ratio > worstRatio || worst < 0) {
        worstRatio = ratio;
        worst = static_cast<int64_t>(i);
      }
    }
  }
  const double normRatio = sumSqRef > 0 ? std::sqrt(sumSqErr / sumSqRef) : (sumSqErr > 0 ? INFINITY : 0);
  std::ostringstream why;
  bool ok = true;
  if (nans) {
    why << nans << " NaN element(s) (got or reference); ";
    ok = false;
  }
  if (bad) {
    why << bad << " of " << r.size() << " elements beyond the bound; worst at " << worst
        << ": got " << g[worst] << ", want " << r[worst] << " (|err| "
        << std::fabs(static_cast<double>(g[worst]) - r[worst]) << " > bound "
        << bound(worst, r[worst]) << "); ";
    ok = false;
  }
  if (norm > 0 && normRatio > norm) {
    why << "||got - ref|| / ||ref|| = " << normRatio << " > " << norm << "; ";
    ok = false;
  }
  if (!ok)
    ADD_FAILURE() << why.str() << "max |err| " << maxAbsErr << ", ||got - ref|| / ||ref|| "
                  << normRatio << ", " << r.size() << " elements; rule: " << rule;
  return ok;
}

bool compare(const Tensor& got, const Tensor& ref, const Tolerance& tol,
             const std::vector<double>& scale) {
  const DType d = ref.dtype();
  auto bound = [&](int64_t i, double r) {
    const double a = std::fabs(r);
    double b = tol.dtypeUlps * ulpOf(d, a) + std::max(tol.abs, tol.rel * a + tol.f32Ulps * ulpOf(DType::F32, a));
    if (tol.scaled > 0) b += tol.scaled * scale.at(static_cast<size_t>(i));
    return b;
  };
  return compare(got, ref, bound, tol.norm, tol.rule);
}

std::vector<double> absValues(const Tensor& t) {
  std::vector<double> out;
  for (float f : t.to_vector<float>()) out.push_back(std::fabs(f));
  return out;
}

double maxAbs(const Tensor& t) {
  double m = 0;
  for (float f : t.to_vector<float>()) m = std::max(m, static_cast<double>(std::fabs(f)));
  return m;
}

/// Bitwise equality of two results (fused vs unfused).
bool sameBits(const Tensor& a, const Tensor& b, std::string& why) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) {
    why = "types differ";
    return false;
  }
  if (!tg::is_floating(a.dtype())) {
    if (a.to_vector<int32_t>() == b.to_vector<int32_t>()) return true;
    why = "integer elements differ";
    return false;
  }
  std::vector<float> x = a.to_vector<float>(), y = b.to_vector<float>();
  for (size_t i = 0; i < x.size(); ++i)
    if (std::memcmp(&x[i], &y[i], sizeof(float)) != 0) {
      std::ostringstream os;
      os << "element " << i << " of " << x.size() << ": " << x[i] << " vs " << y[i];
      why = os.str();
      return false;
    }
  return true;
}

std::vector<Tensor> toDevice(const std::vector<Tensor>& ts, Device d) {
  std::vector<Tensor> out;
  for (const Tensor& t : ts) out.push_back(t.to(d));
  return out;
}

/// f32 accumulation in another order than the reference's f64: a relative tolerance (against
/// sum |x|) that grows with sqrt(count) from 1e-5.
bool cachingAllocator() {
  tg::rt::Gpu* gpu = tg::rt::Gpu::get();
  return gpu && gpu->cachesMemory();
}

double accumulationRel(int64_t count) {
  return 1e-5 * std::sqrt(std::max(1.0, static_cast<double>(count) / 64.0));
}

Tensor readmeChain(const Tensor& x, const Tensor& y) {
  auto t = tg::tanh(x * 1.5f + y) * tg::sigmoid(y);
  return tg::exp(-(t * t)) * y + 1.0f;
}

/// The chain's error bound at element i, from the per-op errors (u = 2^-24):
///  f32: tanh and sigmoid 4 ulp each -> t within 17u, t*t within 35u, exp(-t*t) within
///       35u + 8u, times y: |z - 1| within 44u |y|; with a 3x margin: 8e-6 |y| + 4 ulp(z).
///  bf16: every op rounds to bf16 (2^-8) and tanh/sigmoid/exp use approximations: t within
///       about 4 ulp, t*t 8 ulp, exp 10 ulp (2^-7 each) -> 0.1 |y| + 2 ulp(z).
double chainBound(DType d, double y, double z) {
  if (d == DType::F32) return 8e-6 * std::fabs(y) + 4 * ulpOf(DType::F32, std::fabs(z));
  return 0.1 * std::fabs(y) + 2 * ulpOf(d, std::fabs(z));
}


}  // namespace tggpu
