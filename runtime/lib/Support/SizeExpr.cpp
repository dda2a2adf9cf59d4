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

namespace {

/// A recursive-descent reader of sums of products (SizeExpr::parse).
class Reader {
 public:
  Reader(std::string_view text, std::vector<std::string>& names) : text_(text), names_(names) {}

  std::optional<SizeExpr> sum(std::string& error) {
    try {
      std::optional<SizeExpr> e = product(error, false);
      while (e) {
        skip();
        if (pos_ == text_.size()) return e;
        const char op = text_[pos_];
        if (op != '+' && op != '-') return fail(error, "expected '+', '-' or '*'");
        ++pos_;
        // A difference adds the negated product, so that `x - 9223372036854775808` reads.
        std::optional<SizeExpr> rhs = product(error, op == '-');
        if (!rhs) return std::nullopt;
        e = *e + *rhs;
      }
      return e;
    } catch (const Error& overflow) {
      error = overflow.message();
      return std::nullopt;
    }
  }

 private:
  void skip() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  std::optional<SizeExpr> fail(std::string& error, const std::string& what) {
    error = what + " at column " + std::to_string(pos_ + 1) + " of '" + std::string(text_) + "'";
    return std::nullopt;
  }
  /// A product, negated when `negate` (or when it starts with '-'): the negation is applied to
  /// its first factor, exactly for integers down to INT64_MIN.
  std::optional<SizeExpr> product(std::string& error, bool negate) {
    skip();
    if (pos_ < text_.size() && text_[pos_] == '-') {
      negate = !negate;
      ++pos_;
    }
    std::optional<SizeExpr> e = factor(error, negate);
    while (e) {
      skip();
      if (pos_ == text_.size() || text_[pos_] != '*') break;
      ++pos_;
      std::optional<SizeExpr> rhs = factor(error, false);
      if (!rhs) return std::nullopt;
      e = *e * *rhs;
    }
    return e;
  }
  std::optional<SizeExpr> factor(std::string& error, bool negate) {
    skip();
    const size_t start = pos_;
    auto isDigit = [](char c) { return c >= '0' && c <= '9'; };
    auto isNameChar = [&](char c) { return isDigit(c) || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    if (pos_ < text_.size() && isDigit(text_[pos_])) {
      const uint64_t limit = negate ? uint64_t(INT64_MAX) + 1 : uint64_t(INT64_MAX);
      uint64_t v = 0;
      for (; pos_ < text_.size() && isDigit(text_[pos_]); ++pos_) {
        const uint64_t digit = static_cast<uint64_t>(text_[pos_] - '0');
        if (v > (limit - digit) / 10) return fail(error, "an integer past int64");
        v = v * 10 + digit;
      }
      return SizeExpr(negate ? static_cast<int64_t>(uint64_t(0) - v) : static_cast<int64_t>(v));
    }
    while (pos_ < text_.size() && isNameChar(text_[pos_])) ++pos_;
    if (pos_ == start) return fail(error, "expected an integer or a name");
    const std::string name(text_.substr(start, pos_ - start));
    auto it = std::find(names_.begin(), names_.end(), name);
    if (it == names_.end()) {
      names_.push_back(name);
      it = names_.end() - 1;
    }
    const SizeExpr symbol = SizeExpr::symbol(static_cast<int>(it - names_.begin()));
    return negate ? SizeExpr(0) - symbol : symbol;
  }

  std::string_view text_;
  std::vector<std::string>& names_;
  size_t pos_ = 0;
};

}  // namespace

std::optional<SizeExpr> SizeExpr::parse(std::string_view text, std::vector<std::string>& names, std::string& error) {
  return Reader(text, names).sum(error);
}

}  // namespace tg
