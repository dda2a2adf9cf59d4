//===- Rotary.h - A rotary embedding for attention tests -------------------===//
//
// Header-only, public API: the rotate-half rotary embedding of q [heads, rows, dim] with
// angles from iotas, as a decoder writes it (the attention tests check that the attention
// kernel computes it where it reads q).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <tg/tg.h>

namespace tgtest {

inline tg::Tensor rotateHalf(const tg::Tensor& q) {
  const int64_t half = q.shape()[2] / 2;
  tg::Tensor angles = tg::cast(tg::iota({q.shape()[1], half}, 1, tg::DType::I32, q.device()), tg::DType::F32) * 0.37;
  tg::Tensor c = tg::concat({tg::cos(angles), tg::cos(angles)}, -1), s = tg::sin(angles);
  s = tg::concat({s, s}, -1);
  tg::Tensor qf = tg::cast(q, tg::DType::F32);
  tg::Tensor x1 = tg::slice(qf, -1, 0, half), x2 = tg::slice(qf, -1, half);
  return tg::cast(qf * c + tg::concat({-x2, x1}, -1) * s, q.dtype());
}

}  // namespace tgtest
