//===- ByteAccess.h - Host tensor elements written and read byte-wise (tests) ===//
//
// Independent of HostTensor's own accessors (setFloat / floatAt), so tests of the reference
// kernels do not check the code under test against itself. The element is converted with
// tg/Support/Half.h only for the 16-bit bit patterns.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Reference/HostTensor.h"
#include "tg/Support/Half.h"

#include <cstdint>
#include <cstring>

namespace tgtest {

using tg::DType;
using tg::ref::HostTensor;

inline void store(HostTensor& t, int64_t i, double v) {
  std::byte* p = t.mutableData() + i * tg::dtype_size(t.dtype());
  switch (t.dtype()) {
    case DType::F32: {
      float f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
      return;
    }
    case DType::F16: {
      uint16_t h = tg::float_to_f16(static_cast<float>(v));
      std::memcpy(p, &h, 2);
      return;
    }
    case DType::BF16: {
      uint16_t h = tg::float_to_bf16(static_cast<float>(v));
      std::memcpy(p, &h, 2);
      return;
    }
    case DType::I32: {
      int32_t x = static_cast<int32_t>(v);
      std::memcpy(p, &x, 4);
      return;
    }
    case DType::Bool: {
      uint8_t b = v != 0 ? 1 : 0;
      std::memcpy(p, &b, 1);
      return;
    }
  }
}

inline double load(const HostTensor& t, int64_t i) {
  const std::byte* p = t.data() + i * tg::dtype_size(t.dtype());
  switch (t.dtype()) {
    case DType::F32: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case DType::F16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return tg::f16_to_float(h);
    }
    case DType::BF16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return tg::bf16_to_float(h);
    }
    case DType::I32: {
      int32_t x;
      std::memcpy(&x, p, 4);
      return x;
    }
    case DType::Bool: {
      uint8_t b;
      std::memcpy(&b, p, 1);
      return b;
    }
  }
  return 0;
}

}  // namespace tgtest
