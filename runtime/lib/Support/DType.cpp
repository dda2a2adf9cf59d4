//===- DType.cpp - Element type names, sizes and shape helpers ------------===//
#include "tg/Support/DType.h"

#include "tg/Support/Error.h"

#include <sstream>

namespace tg {

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::F32: return "f32";
    case DType::F16: return "f16";
    case DType::BF16: return "bf16";
    case DType::I32: return "i32";
    case DType::Bool: return "bool";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
  if (name == "f32") return DType::F32;
  if (name == "f16") return DType::F16;
  if (name == "bf16") return DType::BF16;
  if (name == "i32") return DType::I32;
  if (name == "bool" || name == "i1") return DType::Bool;
  return std::nullopt;
}

size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::F32: return 4;
    case DType::F16: return 2;
    case DType::BF16: return 2;
    case DType::I32: return 4;
    case DType::Bool: return 1;
  }
  return 0;
}

bool is_floating(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16;
}

std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t product;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

std::optional<int64_t> checked_numel(const Shape& shape) {
  for (int64_t d : shape)
    if (d == 0) return 0;  // before any product can overflow: [2^40, 2^40, 0] has 0 elements
  int64_t n = 1;
  for (int64_t d : shape) {
    std::optional<int64_t> next = checked_mul(n, d);
    if (!next) return std::nullopt;
    n = *next;
  }
  return n;
}

std::string tensor_size_error(DType dtype, const Shape& shape) {
  int64_t bytes = static_cast<int64_t>(dtype_size(dtype));
  for (int64_t d : shape) {
    if (d < 0) return std::string(dtype_name(dtype)) + format_shape(shape) + " has a negative extent";
    std::optional<int64_t> next = checked_mul(bytes, d == 0 ? 1 : d);
    if (!next || *next > kMaxTensorBytes)
      return std::string(dtype_name(dtype)) + format_shape(shape) +
             " takes more than 2^48 bytes, tg's limit for one tensor";
    bytes = *next;
  }
  return {};
}

int64_t shape_numel(const Shape& shape) {
  std::optional<int64_t> n = checked_numel(shape);
  if (!n) throw Error("shape " + format_shape(shape) + " has more elements than int64 can count");
  return *n;
}

std::string format_shape(const Shape& shape) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << ']';
  return os.str();
}

}  // namespace tg
