//===- Gemv.cpp - Matmuls that are a few dot products per row of one operand ===//
#include "tg/Dialect/Gemv.h"

using namespace mlir;

namespace tg {

std::optional<GemvShape> gemvShape(ir::MatmulOp mm) {
  auto ta = cast<RankedTensorType>(mm.getA().getType());
  auto tc = cast<RankedTensorType>(mm.getType());
  const int64_t rc = tc.getRank();
  const int64_t m = tc.getShape()[rc - 2], n = tc.getShape()[rc - 1];
  const int64_t k = mm.getTransposeA() ? ta.getShape()[ta.getRank() - 2] : ta.getShape().back();
  GemvShape g;
  g.k = k;
  g.batch = tc.getNumElements() / std::max<int64_t>(1, m * n);
  if (mm.getTransposeB() && m <= kGemvMaxVectors) {
    g.matrixIsB = true, g.rows = n, g.vectors = m;
    return g;
  }
  if (!mm.getTransposeA() && n <= kGemvMaxVectors) {
    g.matrixIsB = false, g.rows = m, g.vectors = n;
    return g;
  }
  return std::nullopt;
}

}  // namespace tg
