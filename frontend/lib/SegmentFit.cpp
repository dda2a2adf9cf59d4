//===- SegmentFit.cpp - A segment's sizes fitted from the calls that traced it ===//
//
// See SegmentFit.h. The terms are the products of the varied symbols over each subset, taken
// relative to the first sample's sizes (smaller numbers, the same integer coefficients once
// expanded). A set of samples that separates the terms is picked by Gaussian elimination in
// long double; the coefficients are solved there, rounded to integers, and the polynomials are
// then checked exactly (128-bit) on every sample: numerical error can only make the fit fail.
//
//===----------------------------------------------------------------------===//
#include "tg/Frontend/SegmentFit.h"
#include "tg/Support/Error.h"

#include <cmath>
#include <optional>
#include <utility>

namespace tg::detail {

namespace {

using Wide = __int128;

/// The term of `subset` (a mask over `varied`) at `sizes`, relative to `base`.
long double term(unsigned subset, const std::vector<int>& varied, const std::vector<int64_t>& sizes,
                 const std::vector<int64_t>& base) {
  long double t = 1;
  for (size_t b = 0; b < varied.size(); ++b)
    if (subset & (1u << b)) {
      const size_t s = static_cast<size_t>(varied[b]);
      t *= static_cast<long double>(sizes[s] - base[s]);
    }
  return t;
}

}  // namespace

std::optional<std::vector<SizeExpr>> fitObservedSizes(std::span<const std::vector<int64_t>> values,
                                                      std::span<const std::vector<int64_t>> slots,
                                                      const std::vector<int>& varied, std::string& whyNot) {
  const size_t terms = size_t(1) << varied.size();
  if (values.size() != slots.size() || values.empty()) {
    whyNot = "no samples";
    return std::nullopt;
  }
  if (values.size() < terms + 1) {
    whyNot = std::to_string(values.size()) + " sample(s) of " + std::to_string(terms + 1) + " needed";
    return std::nullopt;
  }
  const std::vector<int64_t>& base = values[0];
  const size_t n = values.size(), slotCount = slots[0].size();
  for (const std::vector<int64_t>& s : slots)
    if (s.size() != slotCount) {
      whyNot = "samples of other sizes";
      return std::nullopt;
    }
  // The samples' terms; Gauss-Jordan with partial pivoting over the rows puts `terms` rows that
  // separate them first. The right-hand sides (each slot relative to the first sample) are
  // eliminated alongside.
  std::vector<std::vector<long double>> m(n, std::vector<long double>(terms));
  std::vector<std::vector<long double>> y(n, std::vector<long double>(slotCount));
  for (size_t o = 0; o < n; ++o) {
    for (unsigned t = 0; t < terms; ++t) m[o][t] = term(t, varied, values[o], base);
    for (size_t k = 0; k < slotCount; ++k)
      y[o][k] = static_cast<long double>(slots[o][k]) - static_cast<long double>(slots[0][k]);
  }
  for (unsigned col = 0; col < terms; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < n; ++r)
      if (std::fabs(m[r][col]) > std::fabs(m[pivot][col])) pivot = r;
    if (std::fabs(m[pivot][col]) < 1e-9L) {  // (a fit through near-singular samples fails the exact check)
      whyNot = "the sizes seen do not separate every term of the fit (vary each dim on its own)";
      return std::nullopt;
    }
    std::swap(m[col], m[pivot]);
    std::swap(y[col], y[pivot]);
    for (size_t r = 0; r < n; ++r) {
      if (r == col || m[r][col] == 0) continue;
      const long double f = m[r][col] / m[col][col];
      for (unsigned c = col; c < terms; ++c) m[r][c] -= f * m[col][c];
      for (size_t k = 0; k < slotCount; ++k) y[r][k] -= f * y[col][k];
    }
  }
  // The coefficients of the relative terms, rounded; then the polynomials in the symbols.
  std::vector<std::vector<int64_t>> coef(slotCount, std::vector<int64_t>(terms));
  for (size_t k = 0; k < slotCount; ++k)
    for (unsigned t = 0; t < terms; ++t) {
      const long double c = t == 0 ? 0.0L : y[t][k] / m[t][t];
      if (!(std::fabs(c) < 9.0e18L)) {
        whyNot = "a coefficient out of range";
        return std::nullopt;
      }
      coef[k][t] = static_cast<int64_t>(std::llround(c));
    }
  // The constant term: relative to the first sample, where every other term is 0.
  for (size_t k = 0; k < slotCount; ++k) coef[k][0] = 0;
  // Exact check on every sample.
  for (size_t o = 0; o < n; ++o)
    for (size_t k = 0; k < slotCount; ++k) {
      Wide v = slots[0][k];
      for (unsigned t = 1; t < terms; ++t) {
        Wide p = coef[k][t];
        for (size_t b = 0; b < varied.size(); ++b)
          if (t & (1u << b)) {
            const size_t s = static_cast<size_t>(varied[b]);
            p *= static_cast<Wide>(values[o][s] - base[s]);
          }
        v += p;
      }
      if (v != static_cast<Wide>(slots[o][k])) {
        whyNot = "size " + std::to_string(k) + " of the segment is " + std::to_string(slots[o][k]) +
                 " at one of the sizes seen, which no polynomial of degree one in each dim through the others gives";
        return std::nullopt;
      }
    }
  std::vector<SizeExpr> out;
  out.reserve(slotCount);
  try {  // (SizeExpr's arithmetic throws where a coefficient overflows)
    for (size_t k = 0; k < slotCount; ++k) {
      SizeExpr e(slots[0][k]);
      for (unsigned t = 1; t < terms; ++t) {
        if (coef[k][t] == 0) continue;
        SizeExpr p(coef[k][t]);
        for (size_t b = 0; b < varied.size(); ++b)
          if (t & (1u << b)) p = p * (SizeExpr::symbol(varied[b]) - SizeExpr(base[static_cast<size_t>(varied[b])]));
        e = e + p;
      }
      out.push_back(e);
    }
  } catch (const Error&) {
    whyNot = "a coefficient of the segment's sizes overflows int64";
    return std::nullopt;
  }
  // The expanded polynomials once more, as the jit evaluates them.
  for (size_t o = 0; o < n; ++o)
    for (size_t k = 0; k < slotCount; ++k)
      if (out[k].evaluate(values[o]) != std::optional<int64_t>(slots[o][k])) {
        whyNot = "size " + std::to_string(k) + " of the segment is not its expanded polynomial's value (out of range)";
        return std::nullopt;
      }
  return out;
}

}  // namespace tg::detail
