//===- Gemv.h - Matmuls that are a few dot products per row of one operand ===//
//
// A matmul whose result has at most kGemvMaxVectors rows (x @ w^T with M <= 16) or columns
// (A @ x with N <= 16) reads one operand, the matrix, far more than the other and does few
// flops per element of it: it is bound by the matrix's bytes. When the matrix is stored with
// K contiguous (w [N, K] used as w^T; A [M, K]), tg-select-matmul gives it the gemv path
// (templates/gemv.cuh), which streams each row of the matrix once in 16-byte loads. The
// pass and the emitter share this description of the problem, so they agree on which
// operand is the matrix.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Dialect/TgOps.h"

#include <cstdint>
#include <optional>

namespace tg {

/// The most vectors (result rows of x @ w^T, or columns of A @ x) the gemv path takes.
inline constexpr int64_t kGemvMaxVectors = 16;

/// C = op(A) @ op(B) seen as `vectors` dot products with each of the `rows` rows of a
/// K-contiguous matrix, per batch.
struct GemvShape {
  /// The matrix is B stored [N, K] (x @ w^T: rows = N, vectors = M); otherwise it is A stored
  /// [M, K] (A @ x: rows = M, vectors = N).
  bool matrixIsB = true;
  int64_t rows = 0, vectors = 0, k = 0, batch = 1;
};

/// The gemv view of `mm`, or nothing when neither form applies (no K-contiguous operand
/// against at most kGemvMaxVectors vectors). x @ w^T is preferred when both do.
std::optional<GemvShape> gemvShape(ir::MatmulOp mm);

}  // namespace tg
