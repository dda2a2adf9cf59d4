//===- DType.h - Element types and shapes shared by every layer -----------===//
//
// Standard-library only: included by the public header tg/tg.h and by the compiler and
// runtime alike. The lowest layer owns it so that nothing has to include upwards.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tg {

/// Element types tg supports. bf16 and f16 are stored as such and computed in f32.
enum class DType : uint8_t { F32, F16, BF16, I32, Bool };

/// Short lower-case name: "f32", "f16", "bf16", "i32", "bool".
const char* dtype_name(DType dtype);
/// Parses the names above (and "i1" for bool, as MLIR spells it). Empty on anything else.
std::optional<DType> parse_dtype(std::string_view name);
/// Bytes per element as stored (bool is one byte).
size_t dtype_size(DType dtype);
/// True for f32, f16 and bf16.
bool is_floating(DType dtype);

/// Static tensor shapes: one extent per dimension, outermost first. `{}` is a 0-d scalar.
using Shape = std::vector<int64_t>;

/// The most bytes one tensor may take: 2^48 (256 TiB), counting each zero extent as 1 (so that
/// a tensor with no elements cannot hide huge extents either). Every tensor type is held to it
/// (the dialect's type constraint and the shared shape rules, hence the frontend; HostTensor;
/// the .npy reader), so any product of a tensor's extents, its element count, every element
/// index and byte offset fits in int64 with a factor of 2^15 to spare: code generation
/// multiplies them by strides, element sizes and tile counts without overflow.
inline constexpr int64_t kMaxTensorBytes = int64_t(1) << 48;

/// a * b, or empty if the product does not fit in int64.
std::optional<int64_t> checked_mul(int64_t a, int64_t b);
/// Number of elements of `shape` (1 for a 0-d shape), or empty if the product does not fit in
/// int64 (a zero extent anywhere gives 0).
std::optional<int64_t> checked_numel(const Shape& shape);
/// Why no tg tensor can have `dtype` and `shape` (a negative extent, or more than
/// kMaxTensorBytes), e.g. "f32[4294967296, 4294967296] takes more than 2^48 bytes, tg's limit
/// for one tensor"; empty if one can.
std::string tensor_size_error(DType dtype, const Shape& shape);

/// Number of elements of a shape (1 for a 0-d shape). Throws tg::Error if it does not fit in
/// int64 (shapes that passed tensor_size_error always fit).
int64_t shape_numel(const Shape& shape);
/// "[2, 3, 4]"; "[]" for a scalar.
std::string format_shape(const Shape& shape);

}  // namespace tg
