//===- SizeExpr.h - Sizes that depend on symbolic dimensions --------------===//
//
// A tensor extent, a slice bound or a byte count of a function compiled for a range of sizes
// (JitOptions::dynamic): a polynomial with integer coefficients over the function's symbols
// (`batch`, `seq`), numbered from 0 in the order the function declares them. `seq - 1`,
// `4*seq`, `batch*seq`, `batch*seq*seq*4`. Every layer that meets such a size uses this one
// type: the frontend infers them from traces, the compiler carries them in the IR, the runtime
// evaluates them at each call (buffer bytes, grids). Standard library only.
//
// The form is canonical: terms ordered by their monomials (a sorted list of symbol numbers,
// repeated for powers), like terms merged, zero coefficients dropped. So two expressions are
// equal exactly when their polynomials are.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tg {

class SizeExpr {
 public:
  /// coeff * s[symbols[0]] * s[symbols[1]] * ... (symbols ascending, repeated for powers;
  /// empty for the constant term).
  struct Term {
    int64_t coeff = 0;
    std::vector<int> symbols;
    bool operator==(const Term&) const = default;
  };

  SizeExpr() = default;
  /// The constant `value`.
  SizeExpr(int64_t value);  // NOLINT: a constant is a size expression
  /// The symbol numbered `index` (>= 0).
  static SizeExpr symbol(int index);

  /// Sums, differences and products. Throw tg::Error when a coefficient overflows int64 (no
  /// size within tg's limits comes near).
  SizeExpr operator+(const SizeExpr& other) const;
  SizeExpr operator-(const SizeExpr& other) const;
  SizeExpr operator*(const SizeExpr& other) const;
  bool operator==(const SizeExpr& other) const = default;

  /// The value when no symbol occurs, else empty.
  std::optional<int64_t> constant() const;
  bool isConstant() const { return constant().has_value(); }
  /// The value for the symbols' values (values[i] for symbol i), or empty when it overflows
  /// int64 or names a symbol past the end of `values`.
  std::optional<int64_t> evaluate(std::span<const int64_t> values) const;
  /// The highest symbol number that occurs, or -1.
  int maxSymbol() const;
  /// Whether symbol `index` occurs.
  bool uses(int index) const;
  const std::vector<Term>& terms() const { return terms_; }
  /// The same polynomial with symbol i renamed to map[i] (every symbol that occurs must have
  /// an entry; map[i] == -1 is not allowed).
  SizeExpr renamed(std::span<const int> map) const;

  /// "batch*seq - 1", "4*seq", "0": symbols by their names (names[i] for symbol i; "s<i>"
  /// past the end of `names`), terms of higher degree first.
  std::string str(std::span<const std::string> names = {}) const;
  /// Reads what str() writes: integers and names joined by `+`, `-` and `*` (a leading `-`
  /// too), spaces anywhere. A name not in `names` is appended to it (its number is its
  /// position). Empty, with the reason in `error`, on anything else or on overflow.
  static std::optional<SizeExpr> parse(std::string_view text, std::vector<std::string>& names, std::string& error);

 private:
  void canonicalize();
  std::vector<Term> terms_;  // canonical
};

}  // namespace tg
