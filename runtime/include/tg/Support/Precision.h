//===- Precision.h - How generated kernels evaluate math functions --------===//
#pragma once

namespace tg {

/// How generated kernels compute transcendental functions, division and f32 matmuls.
///  Auto      (the default) f32 and f16 ops use ex2/rcp-based exp and sigmoid and full-range
///            division (div.full: at most 2 ulp), as Triton does, and CUDA's accurate tanh,
///            log, erf, pow and sqrt: results within a few ulp of the C library for moderate
///            arguments (exp's error grows with |x|: about |x| * 2^-24 relative). Ops whose
///            result is bf16 also use tanh.approx (at most 2^-10.9 relative), below bf16's own
///            rounding (2^-9). Sigmoid and tanh-GELU are computed as rcp(1 + exp(-x)), so their
///            error stays relative for every x.
///            f32 matmuls run on the tensor cores as TF32 (inputs rounded to 10 mantissa bits,
///            products within 2^-10 relative, f32 sums), as cuBLAS and PyTorch allow.
///  Accurate  CUDA's accurate functions and IEEE division everywhere, and f32 matmuls in full
///            f32 on the CUDA cores.
///  Fast      the approximations everywhere (f32 tanh then carries up to 2^-10.9 relative);
///            f32 matmuls as TF32.
enum class Precision { Auto, Accurate, Fast };

}  // namespace tg
