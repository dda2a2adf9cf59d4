//===- SizeExpr.cpp - Sizes that depend on symbolic dimensions ------------===//
#include "tg/Support/SizeExpr.h"

#include "tg/Support/Error.h"

#include <algorithm>

namespace tg {

namespace {

/// Canonical order of monomials: higher degree first, then by symbol numbers.
bool before(const std::vector<int>& a, const std::vector<int>& b) {
  if (a.size() != b.size()) return a.size() > b.size();
  return a < b;
}

int64_t add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw Error("size expression: a coefficient overflows int64");
  return r;
}

int64_t mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw Error("size expression: a coefficient overflows int64");
  return r;
}

}  // namespace

SizeExpr::SizeExpr(int64_t value) {
  if (value != 0) terms_.push_back({value, {}});
}

SizeExpr SizeExpr::symbol(int index) {
  if (index < 0) throw Error("size expression: symbol number " + std::to_string(index) + " is negative");
  SizeExpr e;
  e.terms_.push_back({1, {index}});
  return e;
}

void SizeExpr::canonicalize() {
  std::sort(terms_.begin(), terms_.end(), [](const Term& a, const Term& b) { return before(a.symbols, b.symbols); });
  std::vector<Term> merged;
  for (Term& t : terms_) {
    if (!merged.empty() && merged.back().symbols == t.symbols)
      merged.back().coeff = add(merged.back().coeff, t.coeff);
    else
      merged.push_back(std::move(t));
  }
  std::erase_if(merged, [](const Term& t) { return t.coeff == 0; });
  terms_ = std::move(merged);
}

SizeExpr SizeExpr::operator+(const SizeExpr& other) const {
  SizeExpr r = *this;
  r.terms_.insert(r.terms_.end(), other.terms_.begin(), other.terms_.end());
  r.canonicalize();
  return r;
}

SizeExpr SizeExpr::operator-(const SizeExpr& other) const {
  SizeExpr r = *this;
  for (Term t : other.terms_) {
    t.coeff = mul(t.coeff, -1);
    r.terms_.push_back(std::move(t));
  }
  r.canonicalize();
  return r;
}

SizeExpr SizeExpr::operator*(const SizeExpr& other) const {
  SizeExpr r;
  for (const Term& a : terms_)
    for (const Term& b : other.terms_) {
      Term t{mul(a.coeff, b.coeff), a.symbols};
      t.symbols.insert(t.symbols.end(), b.symbols.begin(), b.symbols.end());
      std::sort(t.symbols.begin(), t.symbols.end());
      r.terms_.push_back(std::move(t));
    }
  r.canonicalize();
  return r;
}

std::optional<int64_t> SizeExpr::constant() const {
  if (terms_.empty()) return 0;
  if (terms_.size() == 1 && terms_[0].symbols.empty()) return terms_[0].coeff;
  return std::nullopt;
}

std::optional<int64_t> SizeExpr::evaluate(std::span<const int64_t> values) const {
  int64_t sum = 0;
  for (const Term& t : terms_) {
    int64_t v = t.coeff;
    for (int s : t.symbols) {
      if (static_cast<size_t>(s) >= values.size() || __builtin_mul_overflow(v, values[s], &v)) return std::nullopt;
    }
    if (__builtin_add_overflow(sum, v, &sum)) return std::nullopt;
  }
  return sum;
}

int SizeExpr::maxSymbol() const {
  int m = -1;
  for (const Term& t : terms_)
    for (int s : t.symbols) m = std::max(m, s);
  return m;
}

bool SizeExpr::uses(int index) const {
  for (const Term& t : terms_)
    if (std::find(t.symbols.begin(), t.symbols.end(), index) != t.symbols.end()) return true;
  return false;
}

SizeExpr SizeExpr::renamed(std::span<const int> map) const {
  SizeExpr r;
  for (Term t : terms_) {
    for (int& s : t.symbols) {
      if (static_cast<size_t>(s) >= map.size() || map[s] < 0)
        throw Error("size expression: symbol " + std::to_string(s) + " has no new number");
      s = map[s];
    }
    std::sort(t.symbols.begin(), t.symbols.end());
    r.terms_.push_back(std::move(t));
  }
  r.canonicalize();
  return r;
}

std::string SizeExpr::str(std::span<const std::string> names) const {
  if (terms_.empty()) return "0";
  std::string out;
  for (size_t i = 0; i < terms_.size(); ++i) {
    const Term& t = terms_[i];
    const bool negative = t.coeff < 0;
    const uint64_t magnitude = negative ? uint64_t(0) - static_cast<uint64_t>(t.coeff) : static_cast<uint64_t>(t.coeff);
    if (i > 0)
      out += negative ? " - " : " + ";
    else if (negative)
      out += "-";
    std::string factors;
    for (int s : t.symbols) {
      if (!factors.empty()) factors += "*";
      if (static_cast<size_t>(s) < names.size()) {
        factors += names[s];
      } else {  // appended: GCC 12 warns, wrongly, of overlap in "s" + std::to_string(s)
        factors += 's';
        factors += std::to_string(s);
      }
    }
    if (factors.empty())
      out += std::to_string(magnitude);
    else if (magnitude == 1)
      out += factors;
    else
      out += std::to_string(magnitude) + "*" + factors;
  }
  return out;
}

}  // namespace tg
