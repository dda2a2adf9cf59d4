//===- RefMatmul.cpp - Reference (batched) matrix product, f64 accumulation ===//
#include "tg/Reference/RefKernels.h"

namespace tg::ref {

HostTensor evaluateMatmul(const graph::OpAttrs& attrs, const HostTensor& a, const HostTensor& b) {
  const Shape &sa = a.shape(), &sb = b.shape();
  const int64_t ra = a.rank(), rb = b.rank();
  const int64_t m = attrs.transposeA ? sa[ra - 1] : sa[ra - 2];
  const int64_t k = attrs.transposeA ? sa[ra - 2] : sa[ra - 1];
  const int64_t n = attrs.transposeB ? sb[rb - 2] : sb[rb - 1];
  // Batch: equal batch dims, or one operand of rank 2 shared by every batch.
  Shape outShape(ra >= rb ? sa.begin() : sb.begin(), ra >= rb ? sa.end() - 2 : sb.end() - 2);
  int64_t batch = shape_numel(outShape);
  outShape.push_back(m);
  outShape.push_back(n);
  const int64_t strideA = ra == 2 ? 0 : sa[ra - 2] * sa[ra - 1];
  const int64_t strideB = rb == 2 ? 0 : sb[rb - 2] * sb[rb - 1];

  std::vector<float> fa = a.toFloats(), fb = b.toFloats();
  std::vector<float> out(batch * m * n);
  for (int64_t bi = 0; bi < batch; ++bi) {
    const float* pa = fa.data() + bi * strideA;
    const float* pb = fb.data() + bi * strideB;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p) {
          float av = attrs.transposeA ? pa[p * m + i] : pa[i * k + p];
          float bv = attrs.transposeB ? pb[j * k + p] : pb[p * n + j];
          acc += static_cast<double>(av) * bv;
        }
        out[(bi * m + i) * n + j] = static_cast<float>(acc);
      }
    }
  }
  return HostTensor::fromFloats(a.dtype(), outShape, out);
}

}  // namespace tg::ref
