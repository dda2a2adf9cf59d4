//===- HostTensor.cpp - Host tensors and element conversions --------------===//
#include "tg/Reference/HostTensor.h"

#include "tg/Support/Error.h"
#include "tg/Support/Half.h"

#include <bit>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace tg::ref {

/// The bytes of a tensor of `dtype` and `shape`, after checking tg's size limit: the
/// product of the extents cannot overflow, and a shape no tensor may have is a tg::Error, not
/// a null store or an allocation of 2^64 bytes.
static size_t checkedBytes(DType dtype, const Shape& shape) {
  if (std::string err = tensor_size_error(dtype, shape); !err.empty()) throw Error(err);
  return static_cast<size_t>(shape_numel(shape)) * dtype_size(dtype);
}

HostTensor::HostTensor(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  const size_t bytes = checkedBytes(dtype_, shape_);
  try {
    buffer_ = std::make_shared<std::vector<std::byte>>(bytes);
  } catch (const std::bad_alloc&) {
    throw OutOfMemoryError("out of host memory: a " + std::string(dtype_name(dtype_)) +
                           format_shape(shape_) + " tensor needs " + std::to_string(bytes) +
                           " bytes");
  }
}

HostTensor HostTensor::fromBytes(DType dtype, Shape shape, std::vector<std::byte> bytes) {
  assert(bytes.size() == checkedBytes(dtype, shape));
  HostTensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.buffer_ = std::make_shared<std::vector<std::byte>>(std::move(bytes));
  return t;
}

int32_t floatToInt32(float value) {
  if (std::isnan(value)) return 0;
  if (value >= 2147483648.0f) return std::numeric_limits<int32_t>::max();
  if (value <= -2147483648.0f) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(value);  // truncates toward zero
}

float toFloat(DType dtype, const std::byte* p) {
  switch (dtype) {
    case DType::F32: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case DType::F16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return f16_to_float(h);
    }
    case DType::BF16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return bf16_to_float(h);
    }
    case DType::I32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return static_cast<float>(v);
    }
    case DType::Bool:
      return *reinterpret_cast<const uint8_t*>(p) ? 1.0f : 0.0f;
  }
  return 0;
}

void fromFloat(DType dtype, float value, std::byte* p) {
  switch (dtype) {
    case DType::F32:
      std::memcpy(p, &value, 4);
      return;
    case DType::F16: {
      uint16_t h = float_to_f16(value);
      std::memcpy(p, &h, 2);
      return;
    }
    case DType::BF16: {
      uint16_t h = float_to_bf16(value);
      std::memcpy(p, &h, 2);
      return;
    }
    case DType::I32: {
      int32_t v = floatToInt32(value);
      std::memcpy(p, &v, 4);
      return;
    }
    case DType::Bool:
      *reinterpret_cast<uint8_t*>(p) = value != 0.0f ? 1 : 0;  // NaN is true
      return;
  }
}

HostTensor HostTensor::fromFloats(DType dtype, Shape shape, std::span<const float> values) {
  HostTensor t(dtype, std::move(shape));
  const int64_t n = t.numel();  // not in the loop condition: shape_numel walks the shape
  assert(static_cast<int64_t>(values.size()) == n);
  for (int64_t i = 0; i < n; ++i) t.setFloat(i, values[i]);
  return t;
}

HostTensor HostTensor::fromInts(DType dtype, Shape shape, std::span<const int32_t> values) {
  HostTensor t(dtype, std::move(shape));
  const int64_t n = t.numel();
  assert(static_cast<int64_t>(values.size()) == n);
  for (int64_t i = 0; i < n; ++i) t.setInt(i, values[i]);
  return t;
}

HostTensor HostTensor::filled(DType dtype, Shape shape, double value) {
  HostTensor t(dtype, std::move(shape));
  if (t.numel() == 0) return t;
  if (dtype == DType::I32) {
    // Truncation toward zero with saturation, NaN: 0 (casting an out-of-range double is UB).
    t.setInt(0, std::isnan(value)             ? 0
                : value >= 2147483647.0       ? std::numeric_limits<int32_t>::max()
                : value <= -2147483648.0      ? std::numeric_limits<int32_t>::min()
                                              : static_cast<int32_t>(value));
  } else {
    t.setFloat(0, static_cast<float>(value));
  }
  const size_t size = dtype_size(dtype);
  const int64_t n = t.numel();
  for (int64_t i = 1; i < n; ++i)
    std::memcpy(t.mutableData() + i * size, t.data(), size);
  return t;
}

float HostTensor::floatAt(int64_t i) const {
  return toFloat(dtype_, data() + i * dtype_size(dtype_));
}

int32_t HostTensor::intAt(int64_t i) const {
  if (dtype_ == DType::I32) return dataAs<int32_t>()[i];
  if (dtype_ == DType::Bool) return dataAs<uint8_t>()[i];
  return floatToInt32(floatAt(i));
}

void HostTensor::setFloat(int64_t i, float value) {
  fromFloat(dtype_, value, mutableData() + i * dtype_size(dtype_));
}

/// `value` rounded to bf16's 8 significant bits (nearest-even) as an exact f32: going through
/// static_cast<float> first would round twice (to 24 bits, then to 8), e.g. 2^24 + 2^16 + 1.
static float int32ToBf16Float(int32_t value) {
  int64_t v = value;
  uint64_t mag = static_cast<uint64_t>(v < 0 ? -v : v);
  int shift = static_cast<int>(std::bit_width(mag)) - 8;
  if (shift > 0) {
    uint64_t rest = mag & ((uint64_t{1} << shift) - 1), half = uint64_t{1} << (shift - 1);
    mag >>= shift;
    if (rest > half || (rest == half && (mag & 1))) ++mag;
    mag <<= shift;
  }
  float f = static_cast<float>(mag);  // at most 9 significant bits: exact
  return v < 0 ? -f : f;
}

void HostTensor::setInt(int64_t i, int32_t value) {
  if (dtype_ == DType::I32)
    mutableDataAs<int32_t>()[i] = value;
  else if (dtype_ == DType::Bool)
    mutableDataAs<uint8_t>()[i] = value != 0;
  else if (dtype_ == DType::BF16)
    setFloat(i, int32ToBf16Float(value));
  else
    setFloat(i, static_cast<float>(value));  // f32: one rounding; f16: exact in f32 below 2^24
}

std::vector<float> HostTensor::toFloats() const {
  const int64_t n = numel();
  std::vector<float> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[i] = floatAt(i);
  return out;
}

std::vector<int32_t> HostTensor::toInts() const {
  const int64_t n = numel();
  std::vector<int32_t> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[i] = intAt(i);
  return out;
}

HostTensor HostTensor::reshaped(Shape shape) const {
  assert(shape_numel(shape) == numel());
  HostTensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

std::vector<int64_t> rowMajorStrides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

}  // namespace tg::ref
