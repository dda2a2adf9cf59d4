//===- Creation.cpp - Tensors from host data, constants and random numbers ===//
#include "tg/Frontend/Dispatch.h"
#include "tg/Frontend/Tracer.h"
#include "tg/Runtime/DeviceRandom.h"
#include "tg/Graph/ShapeRules.h"
#include "tg/Support/CounterRandom.h"

namespace tg {

using detail::fail;

/// Negative extents and tg's size limit (detail::checkedNumel), also while tracing.
static void checkShape(const Shape& shape, DType dtype, const char* op, const Loc& loc) {
  (void)detail::checkedNumel({dtype, shape}, op, loc);
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

Tensor iota(Shape shape, int64_t axis, DType dtype, Device device, Loc loc) {
  checkShape(shape, dtype, "iota", loc);
  std::optional<int64_t> a = graph::normalizeAxis(axis, static_cast<int64_t>(shape.size()));
  if (!a)
    fail("iota", "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(shape.size()), loc);
  graph::OpAttrs attrs;
  attrs.shape = std::move(shape);
  attrs.axis = *a;
  attrs.dtype = dtype;
  return detail::apply(graph::OpKind::Iota, attrs, {}, loc, device);
}

Tensor arange(int64_t n, DType dtype, Device device, Loc loc) {
  if (n < 0) fail("iota", "arange(" + std::to_string(n) + "): the length must not be negative", loc);
  return iota({n}, 0, dtype, device, loc);
}

Tensor full(Shape shape, double value, DType dtype, Device device, Loc loc) {
  checkShape(shape, dtype, "full", loc);
  return detail::full({dtype, std::move(shape)}, value, device, loc, "full");
}

Tensor zeros(Shape shape, DType dtype, Device device, Loc loc) {
  checkShape(shape, dtype, "zeros", loc);
  return detail::full({dtype, std::move(shape)}, 0.0, device, loc, "zeros");
}

Tensor ones(Shape shape, DType dtype, Device device, Loc loc) {
  checkShape(shape, dtype, "ones", loc);
  return detail::full({dtype, std::move(shape)}, 1.0, device, loc, "ones");
}

namespace {

Tensor random(Shape shape, DType dtype, uint64_t seed, Device device,
              rt::RandomDistribution dist, const char* op, const Loc& loc) {
  checkShape(shape, dtype, op, loc);
  if (!is_floating(dtype))
    fail(op, std::string("needs a floating-point dtype, got ") + dtype_name(dtype), loc);
  const graph::TensorType type{dtype, std::move(shape)};
  const size_t count = detail::checkedNumel(type, op, loc);
  const bool normal = dist == rt::RandomDistribution::Normal;
  // On the GPU (outside a trace) a kernel makes the values there: no host buffer, no copy.
  if (device == Device::CUDA && !detail::Tracer::current()) {
    rt::Gpu& gpu = detail::requireGpu(op, loc);
    std::shared_ptr<rt::DeviceBuffer> buffer = detail::allocateDevice(gpu, type, op, loc);
    rt::fillRandom(gpu, buffer->ptr(), count, dtype, seed, dist);
    return detail::wrapDevice(std::move(buffer), type);
  }
  // The same values on the host (tg/Support/CounterRandom.h).
  ref::HostTensor host = detail::allocateHost(type, op, loc);
  const int bits = rt::randomMantissaBits(dtype);
  for (size_t i = 0; i < count; ++i)
    host.setFloat(static_cast<int64_t>(i), normal ? tg_random::normalElement(seed, i)
                                                  : tg_random::uniformElement(seed, i, bits));
  return detail::fromHost(std::move(host), device, loc);
}

}  // namespace

Tensor randn(Shape shape, DType dtype, uint64_t seed, Device device, Loc loc) {
  return random(std::move(shape), dtype, seed, device, rt::RandomDistribution::Normal, "randn", loc);
}

Tensor rand(Shape shape, DType dtype, uint64_t seed, Device device, Loc loc) {
  return random(std::move(shape), dtype, seed, device, rt::RandomDistribution::Uniform, "rand", loc);
}

}  // namespace tg
