//===- Precision.h - How generated kernels evaluate math functions --------===//
#pragma once

namespace tg {

/// How generated kernels compute transcendental functions and division.
///  Auto      ops whose result is bf16 use hardware approximations (tanh.approx, ex2.approx,
///            rcp/rsqrt.approx; sigmoid and tanh-GELU through ex2 + rcp, so their error stays
///            relative): at most 2^-10.9 relative (tanh), below bf16's own rounding (2^-9);
///            f32 and f16 ops use CUDA's accurate functions (within a few ulp of the C
///            library). The default.
///  Accurate  accurate functions everywhere.
///  Fast      approximations everywhere (f32 results then carry up to ~5e-4 relative error
///            in tanh and sigmoid).
enum class Precision { Auto, Accurate, Fast };

}  // namespace tg
