//===- SymbolicInferenceTest.cpp - Result types over dynamic dims ----------===//
//
// ir::inferSymbolicResultType (compiler/include/tg/Dialect/SymbolicInference.h): the shape
// rules at sample sizes, fitted as polynomials of the symbols. What a pass that builds ops on
// symbolic values (a decomposition, a fusion) will take its result types from.
//
//===----------------------------------------------------------------------===//
#include "tg/Compiler/Context.h"
#include "tg/Dialect/SymbolicInference.h"

#include "mlir/IR/BuiltinTypes.h"

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

namespace {

using tg::SizeExpr;
using tg::graph::OpAttrs;
using tg::graph::OpKind;

struct Fixture {
  std::lock_guard<std::mutex> lock{tg::compiler::compileMutex()};
  mlir::MLIRContext& context = tg::compiler::sharedContext();
  tg::ir::Symbols symbols{{"batch", "seq"}, {1, 1}, {256, 8192}};
  const SizeExpr batch = SizeExpr::symbol(0), seq = SizeExpr::symbol(1);

  mlir::RankedTensorType type(std::vector<SizeExpr> dims, tg::DType dtype = tg::DType::F32) {
    return tg::ir::symbolicTensorType(&context, dtype, dims, symbols.names);
  }
  std::string text(mlir::Type t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    t.print(os);
    return s;
  }
};

tg::ir::AttrsAtSizes fixed(OpAttrs attrs) {
  return [attrs](std::span<const int64_t>) { return attrs; };
}

TEST(SymbolicInference, ElementwiseReductionsAndCastsFollowTheOperands) {
  Fixture f;
  const auto x = f.type({f.batch, f.seq, SizeExpr(64)});
  std::string error;
  auto sum = tg::ir::inferSymbolicResultType(&f.context, OpKind::Add, fixed({}), mlir::TypeRange{x, x}, f.symbols, error);
  ASSERT_TRUE(sum) << error;
  EXPECT_EQ(*sum, x);

  OpAttrs reduce;
  reduce.axes = {2};
  reduce.keepDims = true;
  auto max = tg::ir::inferSymbolicResultType(&f.context, OpKind::ReduceMax, fixed(reduce), mlir::TypeRange{x}, f.symbols, error);
  ASSERT_TRUE(max) << error;
  EXPECT_EQ(*max, f.type({f.batch, f.seq, SizeExpr(1)})) << f.text(*max);
  reduce.axes = {1};
  reduce.keepDims = false;
  auto rows = tg::ir::inferSymbolicResultType(&f.context, OpKind::ReduceSum, fixed(reduce), mlir::TypeRange{x}, f.symbols, error);
  ASSERT_TRUE(rows) << error;
  EXPECT_EQ(*rows, f.type({f.batch, SizeExpr(64)})) << f.text(*rows);

  OpAttrs toBf16;
  toBf16.dtype = tg::DType::BF16;
  auto cast = tg::ir::inferSymbolicResultType(&f.context, OpKind::Cast, fixed(toBf16), mlir::TypeRange{x}, f.symbols, error);
  ASSERT_TRUE(cast) << error;
  EXPECT_EQ(*cast, f.type({f.batch, f.seq, SizeExpr(64)}, tg::DType::BF16));
}

TEST(SymbolicInference, ProductsAndSumsOfSizesAreFitted) {
  Fixture f;
  // A broadcast to [batch, seq, 64] from [64], its target evaluated at each sample size.
  const auto bias = f.type({SizeExpr(64)});
  auto broadcast = [&](std::span<const int64_t> v) {
    OpAttrs a;
    a.shape = {v[0], v[1], 64};
    a.dims = {2};
    return a;
  };
  std::string error;
  auto wide = tg::ir::inferSymbolicResultType(&f.context, OpKind::Broadcast, broadcast, mlir::TypeRange{bias}, f.symbols, error);
  ASSERT_TRUE(wide) << error;
  EXPECT_EQ(*wide, f.type({f.batch, f.seq, SizeExpr(64)})) << f.text(*wide);

  // A reshape [batch, seq, 64] -> [batch * seq, 64]: a product of two symbols.
  const auto x = f.type({f.batch, f.seq, SizeExpr(64)});
  auto flatten = [&](std::span<const int64_t> v) {
    OpAttrs a;
    a.shape = {v[0] * v[1], 64};
    return a;
  };
  auto flat = tg::ir::inferSymbolicResultType(&f.context, OpKind::Reshape, flatten, mlir::TypeRange{x}, f.symbols, error);
  ASSERT_TRUE(flat) << error;
  EXPECT_EQ(*flat, f.type({f.batch * f.seq, SizeExpr(64)})) << f.text(*flat);

  // A concat along seq of [batch, seq, 64] and [batch, 3, 64]: seq + 3.
  OpAttrs along;
  along.axis = 1;
  const auto three = f.type({f.batch, SizeExpr(3), SizeExpr(64)});
  auto joined = tg::ir::inferSymbolicResultType(&f.context, OpKind::Concat, fixed(along), mlir::TypeRange{x, three}, f.symbols, error);
  ASSERT_TRUE(joined) << error;
  EXPECT_EQ(*joined, f.type({f.batch, f.seq + 3, SizeExpr(64)})) << f.text(*joined);
}

TEST(SymbolicInference, RuleErrorsNameTheSizesAndDivisionsAreRefused) {
  Fixture f;
  std::string error;
  // batch and seq differ at most sizes: the rule's own error, at the first sizes where it fails.
  const auto a = f.type({f.batch, SizeExpr(64)}), b = f.type({f.seq, SizeExpr(64)});
  EXPECT_FALSE(tg::ir::inferSymbolicResultType(&f.context, OpKind::Add, fixed({}), mlir::TypeRange{a, b}, f.symbols, error));
  EXPECT_NE(error.find("at batch = 3, seq = 2: operands have different shapes"), std::string::npos) << error;

  // A reshape that halves seq: right near the lowest sizes, wrong at the top of the range.
  const auto x = f.type({f.seq, SizeExpr(2)});
  auto halve = [&](std::span<const int64_t> v) {
    OpAttrs r;
    r.shape = {v[1] * 2};
    return r;
  };
  auto flat = tg::ir::inferSymbolicResultType(&f.context, OpKind::Reshape, halve, mlir::TypeRange{x}, f.symbols, error);
  ASSERT_TRUE(flat) << error;  // linear: 2*seq is a polynomial
  EXPECT_EQ(*flat, f.type({f.seq * 2})) << f.text(*flat);
  // A broadcast to ceil(seq / 2): 1 and 2 at seq 2 and 3 fit seq - 1, which is wrong at the top.
  const auto one = f.type({SizeExpr(1)});
  auto half = [&](std::span<const int64_t> v) {
    OpAttrs r;
    r.shape = {(v[1] + 1) / 2};
    r.dims = {0};
    return r;
  };
  EXPECT_FALSE(tg::ir::inferSymbolicResultType(&f.context, OpKind::Broadcast, half, mlir::TypeRange{one}, f.symbols, error));
  EXPECT_NE(error.find("dim 0 of the result is 4096 at batch = 2, seq = 8192, which no polynomial"), std::string::npos)
      << error;

  // A name the function does not declare.
  const auto other = tg::ir::symbolicTensorType(&f.context, tg::DType::F32, std::vector<SizeExpr>{SizeExpr::symbol(0)},
                                                std::vector<std::string>{"tokens"});
  EXPECT_FALSE(tg::ir::inferSymbolicResultType(&f.context, OpKind::Neg, fixed({}), mlir::TypeRange{other}, f.symbols, error));
  EXPECT_NE(error.find("'tokens'"), std::string::npos) << error;
}

TEST(SymbolicInference, StaticOperandsGiveTheStaticType) {
  Fixture f;
  const auto x = f.type({SizeExpr(4), SizeExpr(8)});
  ASSERT_FALSE(tg::ir::isSymbolic(x));
  std::string error;
  auto r = tg::ir::inferSymbolicResultType(&f.context, OpKind::Exp, fixed({}), mlir::TypeRange{x}, f.symbols, error);
  ASSERT_TRUE(r) << error;
  EXPECT_EQ(*r, x);
}

}  // namespace
