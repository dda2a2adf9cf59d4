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

/// Number of elements of a shape (1 for a 0-d shape).
int64_t shape_numel(const Shape& shape);
/// "[2, 3, 4]"; "[]" for a scalar.
std::string format_shape(const Shape& shape);

}  // namespace tg
