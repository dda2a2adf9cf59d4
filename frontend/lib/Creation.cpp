//===- Creation.cpp - Tensors from host data, constants and random numbers ===//
#include "tg/Frontend/Dispatch.h"

#include <cmath>

namespace tg {

using detail::fail;

static void checkShape(const Shape& shape, DType dtype, const char* op, const Loc& loc) {
  for (int64_t d : shape)
    if (d < 0) fail(op, "shape " + format_shape(shape) + " has a negative extent", loc);
  if (std::string err = tensor_size_error(dtype, shape); !err.empty()) fail(op, err, loc);
}

template <typename T>
static Tensor fromData(const std::vector<T>& data, Shape shape, DType dtype, Device device,
                       const Loc& loc) {
  checkShape(shape, dtype, "from_vector", loc);
  if (static_cast<int64_t>(data.size()) != shape_numel(shape))
    fail("from_vector",
         std::to_string(data.size()) + " values cannot fill shape " + format_shape(shape) +
             " (" + std::to_string(shape_numel(shape)) + " elements)",
         loc);
  ref::HostTensor host;
  if constexpr (std::is_same_v<T, float>)
    host = ref::HostTensor::fromFloats(dtype, shape, data);
  else
    host = ref::HostTensor::fromInts(dtype, shape, data);
  return detail::fromHost(std::move(host), device, loc);
}

Tensor from_vector(const std::vector<float>& data, Shape shape, DType dtype, Device device,
                   Loc loc) {
  return fromData(data, std::move(shape), dtype, device, loc);
}

Tensor from_vector(const std::vector<int32_t>& data, Shape shape, DType dtype, Device device,
                   Loc loc) {
  return fromData(data, std::move(shape), dtype, device, loc);
}

Tensor from_vector(std::initializer_list<float> data, Shape shape, DType dtype, Device device,
                   Loc loc) {
  return fromData(std::vector<float>(data), std::move(shape), dtype, device, loc);
}

Tensor full(Shape shape, double value, DType dtype, Device device, Loc loc) {
  checkShape(shape, dtype, "full", loc);
  return detail::full({dtype, std::move(shape)}, value, device, loc);
}

Tensor zeros(Shape shape, DType dtype, Device device, Loc loc) {
  return full(std::move(shape), 0.0, dtype, device, loc);
}

Tensor ones(Shape shape, DType dtype, Device device, Loc loc) {
  return full(std::move(shape), 1.0, dtype, device, loc);
}

namespace {

/// SplitMix64's finaliser: a bijective mix of a 64-bit counter into well-spread bits.
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// Uniform in [0, 1) with 53 random bits, from the (seed, stream, index) counter.
double uniform(uint64_t seed, uint64_t index, uint64_t stream) {
  uint64_t bits = mix(mix(seed * 0x9e3779b97f4a7c15ull + stream) + index);
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

enum class Distribution { Uniform, Normal };

Tensor random(Shape shape, DType dtype, uint64_t seed, Device device, Distribution dist,
              const char* op, const Loc& loc) {
  checkShape(shape, dtype, op, loc);
  if (!is_floating(dtype))
    fail(op, std::string("needs a floating-point dtype, got ") + dtype_name(dtype), loc);
  const int64_t n = shape_numel(shape);
  std::vector<float> values(n);
  const double twoPi = 6.283185307179586;
  // Uniform values are multiples of 2^-bits, exact in the dtype, so rounding cannot reach 1.
  const double bits = dtype == DType::F32 ? 24 : dtype == DType::F16 ? 11 : 8;
  const double scale = std::exp2(bits);
  for (int64_t i = 0; i < n; ++i) {
    if (dist == Distribution::Uniform) {
      values[i] = static_cast<float>(std::floor(uniform(seed, i, 0) * scale) / scale);
    } else {
      // Box-Muller on two independent streams; 1 - u keeps the log argument in (0, 1].
      double u1 = 1.0 - uniform(seed, i, 1), u2 = uniform(seed, i, 2);
      values[i] = static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(twoPi * u2));
    }
  }
  return detail::fromHost(ref::HostTensor::fromFloats(dtype, shape, values), device, loc);
}

}  // namespace

Tensor randn(Shape shape, DType dtype, uint64_t seed, Device device, Loc loc) {
  return random(std::move(shape), dtype, seed, device, Distribution::Normal, "randn", loc);
}

Tensor rand(Shape shape, DType dtype, uint64_t seed, Device device, Loc loc) {
  return random(std::move(shape), dtype, seed, device, Distribution::Uniform, "rand", loc);
}

}  // namespace tg
