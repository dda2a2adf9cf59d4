//===- SizeFit.cpp - Multilinear interpolation over the symbols -------------===//
#include "tg/Support/SizeFit.h"

namespace tg {

std::vector<SizeExpr> fitMultilinear(const std::vector<int>& varied, const std::vector<int64_t>& values,
                                     const std::vector<int64_t>& probe, const std::vector<unsigned>& subsets,
                                     const std::function<const std::vector<int64_t>&(unsigned)>& at,
                                     size_t slots) {
  std::vector<SizeExpr> out(slots);
  for (unsigned t : subsets) {
    // d_T = sum over U subset of T of (-1)^{|T|-|U|} f(U), over the sampled subsets only.
    std::vector<int64_t> d(slots, 0);
    for (unsigned u : subsets) {
      if ((u & t) != u) continue;
      const int sign = (__builtin_popcount(t) - __builtin_popcount(u)) % 2 ? -1 : 1;
      const std::vector<int64_t>& f = at(u);
      for (size_t k = 0; k < slots; ++k) d[k] += sign * f[k];
    }
    SizeExpr basis(1);
    for (size_t b = 0; b < varied.size(); ++b)
      if (t & (1u << b)) {
        const int s = varied[b];
        const int64_t direction = probe[s] - values[s];  // +-1
        basis = basis * ((SizeExpr::symbol(s) - values[s]) * direction);
      }
    for (size_t k = 0; k < slots; ++k)
      if (d[k] != 0) out[k] = out[k] + basis * d[k];
  }
  return out;
}

}  // namespace tg
