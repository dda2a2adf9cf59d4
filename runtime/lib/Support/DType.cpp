//===- DType.cpp - Element type names, sizes and shape helpers ------------===//
#include "tg/Support/DType.h"

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

int64_t shape_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string format_shape(const Shape& shape) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << ']';
  return os.str();
}

}  // namespace tg
