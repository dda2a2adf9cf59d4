//===- SizeExprTest.cpp - Polynomials over symbolic dimensions ------------===//
//
// tg/Support/SizeExpr.h: canonical forms (so equality is polynomial equality), arithmetic,
// evaluation with overflow, printing, renaming.
//
//===----------------------------------------------------------------------===//
#include "tg/Support/Error.h"
#include "tg/Support/SizeExpr.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

namespace {

using tg::SizeExpr;

const std::vector<std::string> kNames = {"batch", "seq"};
const SizeExpr B = SizeExpr::symbol(0), S = SizeExpr::symbol(1);

TEST(SizeExpr, EqualPolynomialsAreEqualHoweverTheyWereBuilt) {
  EXPECT_EQ(B * S + 1, SizeExpr(1) + S * B);
  EXPECT_EQ((B + S) * (B - S), B * B - S * S);
  EXPECT_EQ(S - S, SizeExpr(0));
  EXPECT_EQ((S + 2) * 3 - 6, S * 3);
  EXPECT_NE(B * S, B + S);
  EXPECT_NE(B, S);
}

TEST(SizeExpr, ConstantsAndSymbols) {
  EXPECT_EQ(SizeExpr(7).constant(), 7);
  EXPECT_EQ(SizeExpr().constant(), 0);
  EXPECT_EQ((S - S + 4).constant(), 4);
  EXPECT_FALSE((S * 0 + B).constant().has_value());
  EXPECT_EQ((B * S).maxSymbol(), 1);
  EXPECT_EQ(SizeExpr(3).maxSymbol(), -1);
  EXPECT_TRUE((B * S + 1).uses(0));
  EXPECT_FALSE((S * 4).uses(0));
  EXPECT_THROW(SizeExpr::symbol(-1), tg::Error);
}

TEST(SizeExpr, EvaluatesAndReportsOverflowAndMissingValues) {
  const std::vector<int64_t> v = {3, 7};
  EXPECT_EQ((B * S * 4 - S + 2).evaluate(v), 3 * 7 * 4 - 7 + 2);
  EXPECT_EQ(SizeExpr(-5).evaluate(v), -5);
  const std::vector<int64_t> huge = {int64_t(1) << 40, int64_t(1) << 40};
  EXPECT_FALSE((B * S).evaluate(huge).has_value());
  EXPECT_FALSE((B * S).evaluate(std::vector<int64_t>{3}).has_value());
  EXPECT_EQ(SizeExpr(9).evaluate({}), 9);
}

TEST(SizeExpr, PrintsHigherDegreeFirstWithSigns) {
  EXPECT_EQ((B * S - 1).str(kNames), "batch*seq - 1");
  EXPECT_EQ((S * 4).str(kNames), "4*seq");
  EXPECT_EQ((SizeExpr(0) - S + 2).str(kNames), "-seq + 2");
  EXPECT_EQ((S * S * B * 2 + B).str(kNames), "2*batch*seq*seq + batch");
  EXPECT_EQ(SizeExpr(-3).str(kNames), "-3");
  EXPECT_EQ(SizeExpr().str(kNames), "0");
  EXPECT_EQ(SizeExpr::symbol(4).str(kNames), "s4");
  EXPECT_EQ((SizeExpr(std::numeric_limits<int64_t>::min()) + B).str(kNames), "batch - 9223372036854775808");
}

TEST(SizeExpr, CoefficientOverflowIsAnError) {
  const SizeExpr big(std::numeric_limits<int64_t>::max());
  EXPECT_THROW(big + 1, tg::Error);
  EXPECT_THROW(big * 2, tg::Error);
  EXPECT_THROW(SizeExpr(std::numeric_limits<int64_t>::min()) - 1, tg::Error);
}

TEST(SizeExpr, RenamesSymbols) {
  const std::vector<int> swap = {1, 0};
  EXPECT_EQ((B * 2 + S).renamed(swap), S * 2 + B);
  const std::vector<int> merge = {0, 0};
  EXPECT_EQ((B * S).renamed(merge), B * B);
  const std::vector<int> partial = {0};
  EXPECT_THROW((B * S).renamed(partial), tg::Error);
}

TEST(SizeExpr, ParsesWhatItPrints) {
  std::vector<std::string> names = kNames;
  std::string error;
  for (const SizeExpr& e : {B * S - 1, S * 4, SizeExpr(0) - S + 2, S * S * B * 2 + B, SizeExpr(-3), SizeExpr(),
                            SizeExpr(std::numeric_limits<int64_t>::max()) - B,
                            SizeExpr(std::numeric_limits<int64_t>::min()) + B,
                            SizeExpr(std::numeric_limits<int64_t>::min()),
                            B * std::numeric_limits<int64_t>::min() + S}) {
    std::optional<SizeExpr> back = SizeExpr::parse(e.str(names), names, error);
    ASSERT_TRUE(back) << e.str(names) << ": " << error;
    EXPECT_EQ(*back, e) << e.str(names);
  }
  EXPECT_EQ(names, kNames);
  // New names are appended; spaces and grouping of signs are free.
  std::optional<SizeExpr> e = SizeExpr::parse(" 2 * heads*seq - -3 ", names, error);
  ASSERT_TRUE(e) << error;
  EXPECT_EQ(names.size(), 3u);
  EXPECT_EQ(*e, SizeExpr::symbol(2) * S * 2 + 3);
}

TEST(SizeExpr, BadTextIsAnErrorWithItsColumn) {
  std::vector<std::string> names;
  std::string error;
  EXPECT_FALSE(SizeExpr::parse("", names, error));
  EXPECT_NE(error.find("expected an integer or a name"), std::string::npos) << error;
  EXPECT_FALSE(SizeExpr::parse("seq +", names, error));
  EXPECT_FALSE(SizeExpr::parse("seq / 2", names, error));
  EXPECT_NE(error.find("column 5"), std::string::npos) << error;
  EXPECT_FALSE(SizeExpr::parse("99999999999999999999", names, error));
  EXPECT_NE(error.find("past int64"), std::string::npos) << error;
  EXPECT_FALSE(SizeExpr::parse("9223372036854775807 * 2", names, error));
  EXPECT_NE(error.find("overflows"), std::string::npos) << error;
}

}  // namespace
