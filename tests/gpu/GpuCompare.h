//===- GpuCompare.h - Comparing GPU results with the CPU reference --------===//
//
// Shared by the GPU test files: element-wise tolerances in ulps and relative terms, norm-wise
// checks, bitwise equality, and the README chain with its per-element error bound.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <tg/tg.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tggpu {

using tg::Device;
using tg::DType;
using tg::Tensor;

int mantissaBits(DType d);

/// One unit in the last place of `d` at magnitude `v` (subnormals included).
double ulpOf(DType d, double v);

/// The tolerance of one comparison. Element i may differ from the reference r_i by
///   dtypeUlps * ulp(dtype, r_i) + max(abs, rel * |r_i| + f32Ulps * ulp(f32, r_i)) + scaled * s_i
/// where s_i is a per-element magnitude (sum |x| of a reduction, (|A| |B|)_ij of a matmul,
/// max |r| of softmax / layer_norm); and ||got - ref|| / ||ref|| must not exceed `norm` (when
/// set). All zero: bit-exact values.
struct Tolerance {
  double dtypeUlps = 0;
  double f32Ulps = 0;
  double rel = 0;
  double abs = 0;
  double scaled = 0;
  double norm = 0;
  std::string rule = "exact";
};

/// Compares `got` (any device) with the CPU reference `ref` element by element against
/// `bound(i, r_i)` and norm-wise against `norm` (0: not checked). Integers and bools must be
/// equal. Returns false (after reporting a gtest failure) on a mismatch.
bool compare(const Tensor& got, const Tensor& ref,
             const std::function<double(int64_t, double)>& bound, double norm,
             const std::string& rule);
bool compare(const Tensor& got, const Tensor& ref, const Tolerance& tol,
             const std::vector<double>& scale = {});

std::vector<double> absValues(const Tensor& t);
double maxAbs(const Tensor& t);

/// Bitwise equality of two results (fused vs unfused); `why` says where they differ.
bool sameBits(const Tensor& a, const Tensor& b, std::string& why);

std::vector<Tensor> toDevice(const std::vector<Tensor>& ts, Device d);

/// Whether device memory goes through tg's caching allocator (false under
/// TG_NO_MEMORY_CACHING=1, as compute-sanitizer runs set it): tests of what it reuses skip
/// themselves without it.
bool cachingAllocator();

/// f32 accumulation in another order than the reference's f64: a relative tolerance (against
/// sum |x|) that grows with sqrt(count) from 1e-5.
double accumulationRel(int64_t count);

/// The README chain: tanh(x * 1.5 + y) * sigmoid(y) = t; exp(-(t * t)) * y + 1.
Tensor readmeChain(const Tensor& x, const Tensor& y);

/// The chain's error bound at element i (derivation in GpuCompare.cpp).
double chainBound(DType d, double y, double z);

}  // namespace tggpu
