//===- HostTensor.h - A tensor in host memory, as the reference sees it ---===//
//
// The reference interpreter's value type and the storage of CPU tensors. The bytes are shared
// (copying a HostTensor is cheap) and treated as immutable once a kernel has produced them:
// every op writes a fresh buffer, except reshape, which shares. bf16/f16 elements are stored as
// their 16-bit patterns; bool as one byte (0 or 1). MLIR-free.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Support/DType.h"

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace tg::ref {

class HostTensor {
 public:
  HostTensor() = default;
  /// A tensor of `shape` with every byte zero. Throws tg::Error if `shape` breaks tg's size
  /// limit (tensor_size_error), tg::OutOfMemoryError if the host has no memory for it.
  HostTensor(DType dtype, Shape shape);
  /// A tensor holding `bytes`, which must be exactly its size (the .npy reader's pipe path).
  static HostTensor fromBytes(DType dtype, Shape shape, std::vector<std::byte> bytes);

  /// Converts `values` (one per element, row-major) to `dtype` (round-to-nearest-even for
  /// bf16/f16, truncation toward zero with saturation for i32, != 0 for bool).
  static HostTensor fromFloats(DType dtype, Shape shape, std::span<const float> values);
  static HostTensor fromInts(DType dtype, Shape shape, std::span<const int32_t> values);
  /// A tensor of `shape` with every element `value` (converted as above).
  static HostTensor filled(DType dtype, Shape shape, double value);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t numel() const { return shape_numel(shape_); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype_); }
  bool defined() const { return buffer_ != nullptr; }

  const std::byte* data() const { return buffer_->data(); }
  std::byte* mutableData() { return buffer_->data(); }
  template <typename T>
  const T* dataAs() const { return reinterpret_cast<const T*>(data()); }
  template <typename T>
  T* mutableDataAs() { return reinterpret_cast<T*>(mutableData()); }

  /// Element i as f32 (exact for every dtype but i32 beyond 2^24).
  float floatAt(int64_t i) const;
  /// Element i as i32 (floats truncate toward zero, saturating; NaN gives 0).
  int32_t intAt(int64_t i) const;
  /// Stores f32 `value` converted to the dtype.
  void setFloat(int64_t i, float value);
  void setInt(int64_t i, int32_t value);

  /// All elements as f32 / i32.
  std::vector<float> toFloats() const;
  std::vector<int32_t> toInts() const;

  /// The same bytes viewed with another shape of equal element count.
  HostTensor reshaped(Shape shape) const;

 private:
  DType dtype_ = DType::F32;
  Shape shape_;
  std::shared_ptr<std::vector<std::byte>> buffer_;
};

/// Row-major strides of a shape, in elements.
std::vector<int64_t> rowMajorStrides(const Shape& shape);

/// Conversions between f32 and every dtype, as the reference and the generated code define them.
float toFloat(DType dtype, const std::byte* element);
void fromFloat(DType dtype, float value, std::byte* element);
int32_t floatToInt32(float value);

}  // namespace tg::ref
