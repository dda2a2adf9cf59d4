//===- IndexExprTest.cpp - The C text of kernel index arithmetic ----------===//
//
// Generated kernels read their inputs at offsets printed by codegen::IndexExpr as C. The CPU
// runs of the random programs never compile that text, so a wrong print would only show on the
// GPU: these tests evaluate the printed text with C's precedence rules here. The random layout
// chains (transpose, reshape, broadcast through mapToRoot, as the elementwise and reduction
// emitters do) are checked against the interpreter run on an iota input, whose output names
// the input element each output element reads.
//
//===----------------------------------------------------------------------===//
#include "IndexExpr.h"
#include "SizeArguments.h"
#include "tg/Dialect/SymbolicTypes.h"

#include "tg/Compiler/Context.h"
#include "tg/Reference/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using tg::Shape;
using tg::codegen::DimIndices;
using tg::codegen::IndexExpr;

/// Evaluates C integer expression text (unsigned literals with a "u"/"ull" suffix, variables,
/// + * / % and parentheses) with C's precedence and associativity.
class CEval {
 public:
  CEval(const std::string& text, const std::map<std::string, uint64_t>& vars)
      : s_(text), vars_(vars) {}
  uint64_t run() {
    uint64_t v = sum();
    skip();
    if (pos_ != s_.size()) throw std::runtime_error("trailing text at " + std::to_string(pos_));
    return v;
  }

 private:
  void skip() {
    while (pos_ < s_.size() && s_[pos_] == ' ') ++pos_;
  }
  uint64_t sum() {
    uint64_t v = product();
    for (skip(); pos_ < s_.size() && s_[pos_] == '+'; skip()) {
      ++pos_;
      v += product();
    }
    return v;
  }
  uint64_t product() {
    uint64_t v = factor();
    for (skip(); pos_ < s_.size() && (s_[pos_] == '*' || s_[pos_] == '/' || s_[pos_] == '%');
         skip()) {
      char op = s_[pos_++];
      uint64_t w = factor();
      if (op != '*' && w == 0) throw std::runtime_error("division by zero");
      v = op == '*' ? v * w : op == '/' ? v / w : v % w;
    }
    return v;
  }
  uint64_t factor() {
    skip();
    if (pos_ >= s_.size()) throw std::runtime_error("unexpected end");
    if (s_[pos_] == '(') {
      ++pos_;
      uint64_t v = sum();
      skip();
      if (pos_ >= s_.size() || s_[pos_] != ')') throw std::runtime_error("missing )");
      ++pos_;
      return v;
    }
    size_t start = pos_;
    if (std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      uint64_t v = std::stoull(s_.substr(start, pos_ - start));
      while (pos_ < s_.size() && (s_[pos_] == 'u' || s_[pos_] == 'l')) ++pos_;
      return v;
    }
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
      ++pos_;
    auto it = vars_.find(s_.substr(start, pos_ - start));
    if (it == vars_.end()) throw std::runtime_error("unknown name at " + std::to_string(start));
    return it->second;
  }
  std::string s_;
  const std::map<std::string, uint64_t>& vars_;
  size_t pos_ = 0;
};

uint64_t eval(const IndexExpr& e, const std::map<std::string, uint64_t>& vars) {
  return CEval(e.str("u"), vars).run();
}

TEST(IndexExpr, SumsUnderDivisionModuloAndProductArePrintedInParentheses) {
  // Before the fix, ((x * 10 + y) % 7) printed as "(x * 10u + y % 7u)".
  const IndexExpr x = IndexExpr::var("x", 9), y = IndexExpr::var("y", 10);
  const IndexExpr sum = x * 10 + y;
  const IndexExpr mod = sum % 7, div = sum / 7, mul = sum * 3, nested = (sum / 4) % 5 * 6 + x;
  for (uint64_t a = 0; a < 9; ++a)
    for (uint64_t b = 0; b < 10; ++b) {
      std::map<std::string, uint64_t> v{{"x", a}, {"y", b}};
      const uint64_t s = a * 10 + b;
      EXPECT_EQ(eval(mod, v), s % 7) << mod.str("u");
      EXPECT_EQ(eval(div, v), s / 7) << div.str("u");
      EXPECT_EQ(eval(mul, v), s * 3) << mul.str("u");
      EXPECT_EQ(eval(nested, v), (s / 4) % 5 * 6 + a) << nested.str("u");
    }
}

std::string tensorType(const Shape& shape) {
  std::string s = "tensor<";
  for (int64_t d : shape) s += std::to_string(d) + "x";
  return s + "f32>";
}

std::string list(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

/// A random chain of 1-5 layout ops from a small tensor, as MLIR text; `in` gets the
/// argument's shape and `out` the result's.
std::string randomChain(std::mt19937& rng, Shape& in, Shape& out) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Shape shape;
  for (int r = pick(1, 4); r > 0; --r) shape.push_back(pick(1, 6));
  in = shape;
  std::ostringstream body;
  const int steps = pick(1, 5);
  for (int step = 0; step < steps; ++step) {
    Shape next;
    std::string op;
    const int kind = pick(0, 2);
    if (kind == 0 && shape.size() > 1) {  // transpose
      std::vector<int64_t> perm(shape.size());
      for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
      std::shuffle(perm.begin(), perm.end(), rng);
      for (int64_t p : perm) next.push_back(shape[p]);
      op = "tg.transpose %v" + std::to_string(step) + " perm = " + list(perm);
    } else if (kind == 1 && shape.size() < 5) {  // broadcast: new dims, and size-1 dims grown
      std::vector<int64_t> dims;
      const size_t rank = shape.size() + pick(0, 5 - static_cast<int>(shape.size()));
      std::vector<int64_t> positions(rank);
      for (size_t i = 0; i < rank; ++i) positions[i] = static_cast<int64_t>(i);
      std::shuffle(positions.begin(), positions.end(), rng);
      positions.resize(shape.size());
      std::sort(positions.begin(), positions.end());
      next.assign(rank, 0);
      for (size_t k = 0; k < shape.size(); ++k)
        next[positions[k]] = shape[k] == 1 && pick(0, 1) ? pick(2, 3) : shape[k];
      for (int64_t& d : next)
        if (d == 0) d = pick(1, 3);
      op = "tg.broadcast %v" + std::to_string(step) + " dims = " + list(positions);
    } else {  // reshape: the element count's prime factors regrouped
      std::vector<int64_t> primes;
      int64_t n = tg::shape_numel(shape);
      for (int64_t p = 2; n > 1; ++p)
        while (n % p == 0) primes.push_back(p), n /= p;
      std::shuffle(primes.begin(), primes.end(), rng);
      next.assign(pick(1, 4), 1);
      for (int64_t p : primes) next[pick(0, static_cast<int>(next.size()) - 1)] *= p;
      op = "tg.reshape %v" + std::to_string(step);
    }
    if (tg::shape_numel(next) > 4096) break;
    body << "    %v" << step + 1 << " = " << op << " : " << tensorType(shape) << " to "
         << tensorType(next) << "\n";
    shape = next;
    out = shape;
  }
  if (body.str().empty()) {  // every step was too big: one transpose-free reshape
    out = {tg::shape_numel(shape)};
    body << "    %v1 = tg.reshape %v0 : " << tensorType(shape) << " to " << tensorType(out) << "\n";
  }
  int last = 0;
  for (char c : body.str()) last += c == '\n';
  return "func.func @f(%v0: " + tensorType(in) + ") -> " + tensorType(out) + " {\n" + body.str() +
         "    return %v" + std::to_string(last) + " : " + tensorType(out) + "\n}\n";
}

/// A random chain parsed, and the interpreter's output on an iota of its input: element i of
/// `reference` is the index of the input element that output element i reads.
struct InterpretedChain {
  std::string text;
  Shape out;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp func;
  std::vector<tg::ref::HostTensor> reference;
};

InterpretedChain interpretedChain(std::mt19937& rng) {
  InterpretedChain c;
  Shape in;
  c.text = randomChain(rng, in, c.out);
  c.module = mlir::parseSourceString<mlir::ModuleOp>(c.text, &tg::compiler::sharedContext());
  if (!c.module) throw std::runtime_error("the chain does not parse:\n" + c.text);
  c.func = c.module->lookupSymbol<mlir::func::FuncOp>("f");
  tg::ref::HostTensor iota(tg::DType::F32, in);
  for (int64_t i = 0; i < iota.numel(); ++i) reinterpret_cast<float*>(iota.mutableData())[i] = static_cast<float>(i);
  const std::vector<tg::ref::HostTensor> args{iota};
  c.reference = tg::ref::interpret(c.func, args);
  return c;
}

TEST(IndexExpr, RandomLayoutChainsReadTheElementsTheInterpreterReads) {
  std::mt19937 rng(20261202);
  int chains = 0, withSums = 0;
  for (int trial = 0; trial < 400; ++trial) {
    InterpretedChain c = interpretedChain(rng);
    SCOPED_TRACE(c.text);
    const Shape& out = c.out;
    const std::vector<tg::ref::HostTensor>& reference = c.reference;
    mlir::Value result = c.func.getBody().front().getTerminator()->getOperand(0);
    const int64_t numel = tg::shape_numel(out);
    mlir::Value root;
    DimIndices idx = tg::codegen::mapToRoot(
        result, tg::codegen::delinearize(IndexExpr::var("i", numel), out), root);
    ASSERT_TRUE(mlir::isa<mlir::BlockArgument>(root));
    const IndexExpr offset = tg::codegen::linearize(idx);
    const std::string printed = offset.str("u");
    withSums += printed.find("+") != std::string::npos && printed.find("(") != std::string::npos;
    ++chains;
    for (int64_t i = 0; i < numel; ++i) {
      const uint64_t got = eval(offset, {{"i", static_cast<uint64_t>(i)}});
      const auto want = static_cast<uint64_t>(reference[0].dataAs<float>()[i]);
      ASSERT_EQ(got, want) << "element " << i << " of " << tensorType(out) << " reads " << printed;
    }
  }
  EXPECT_EQ(chains, 400);
  EXPECT_GT(withSums, 40) << "too few chains print a sum under / or %: the test would not see it";
}

// The same chains with their extents taken at run time (issue 18: index arithmetic over
// dynamic dims): each dim larger than 1 is, at random, a number or a size argument (named for
// its value, as the kernels name each distinct size), so divisions, remainders and strides by
// run-time values meet every layout op. Printed without a suffix (no casts) and evaluated with
// the size arguments bound.
TEST(IndexExpr, RandomLayoutChainsWithRunTimeExtentsReadTheElementsTheInterpreterReads) {
  std::mt19937 rng(20261207);
  int runtimeDivisions = 0;
  for (int trial = 0; trial < 400; ++trial) {
    InterpretedChain c = interpretedChain(rng);
    SCOPED_TRACE(c.text);
    const Shape& out = c.out;
    const std::vector<tg::ref::HostTensor>& reference = c.reference;

    std::map<std::string, uint64_t> vars;
    const bool allRunTime = trial % 2 == 0;
    auto extentsOf = [&](mlir::Value v) -> std::optional<std::vector<tg::codegen::Extent>> {
      std::vector<tg::codegen::Extent> e;
      for (int64_t d : mlir::cast<mlir::RankedTensorType>(v.getType()).getShape()) {
        // Decided by the value, so that a dim is the same extent wherever the chain meets it.
        const bool runTime = d > 1 && (allRunTime || d % 2 == 1);
        if (!runTime) {
          e.push_back({d, {}});
          continue;
        }
        // Its bound is the range's largest size, above this one: nothing may take it for the
        // size (a run-time extent is known only to be at most its bound).
        const std::string name = "z" + std::to_string(d) + "_";
        vars[name] = static_cast<uint64_t>(d);
        e.push_back({3 * d + 5, name});
      }
      return e;
    };
    mlir::Value result = c.func.getBody().front().getTerminator()->getOperand(0);
    const int64_t numel = tg::shape_numel(out);
    mlir::Value root;
    const DimIndices at = tg::codegen::delinearizeExtents(IndexExpr::var("i", numel), *extentsOf(result));
    std::optional<std::vector<IndexExpr>> dims = tg::codegen::mapToRootExtents(result, at.dims, extentsOf, root);
    ASSERT_TRUE(dims);
    ASSERT_TRUE(mlir::isa<mlir::BlockArgument>(root));
    const IndexExpr offset = tg::codegen::linearizeExtents(*dims, *extentsOf(root));
    const std::string printed = offset.str("");
    runtimeDivisions += printed.find("/ z") != std::string::npos || printed.find("% z") != std::string::npos;
    for (int64_t i = 0; i < numel; ++i) {
      vars["i"] = static_cast<uint64_t>(i);
      const uint64_t got = CEval(printed, vars).run();
      const auto want = static_cast<uint64_t>(reference[0].dataAs<float>()[i]);
      ASSERT_EQ(got, want) << "element " << i << " of " << tensorType(out) << " reads " << printed;
    }
  }
  EXPECT_GT(runtimeDivisions, 100) << "too few chains divide by a run-time extent: the test would not see it";
}

// A variable of unknown bound (1 << 62, as over dynamic dims) times a stride, plus more: the
// bounds saturate (no signed overflow, which UBSan caught in the sanitizer CI) and stay
// above every value, so no division or remainder is simplified away.
TEST(IndexExpr, HugeBoundsSaturateAndSimplifyNothingAway) {
  const IndexExpr x = IndexExpr::var("x", int64_t(1) << 62);
  const IndexExpr y = (x * 64 + x * 4096) * 1024;
  EXPECT_GT(y.bound(), int64_t(1) << 62);
  EXPECT_NE((y / 128).str("ull").find("/ 128ull"), std::string::npos) << (y / 128).str("ull");
  EXPECT_NE((y % 1000).str("ull").find("% 1000ull"), std::string::npos) << (y % 1000).str("ull");
  EXPECT_NE(((y / 128) / 1024).str("ull").find("x"), std::string::npos);
}

// Slices whose starts are sizes of the symbols (issue 18: the decoder's last row x[T - 1], a
// window at the end): read through further layout ops over dynamic dims with run-time
// extents and run-time starts (SizeArguments), at each size the element the interpreter
// reads in the module instantiated at that size.
TEST(IndexExpr, SlicesWhoseStartsAreSizesReadTheElementsTheInterpreterReads) {
  const char* chains[] = {
      R"(func.func @f(%x: tensor<?x6x4xf32, #tg.sizes<[T, 6, 4]>>) -> tensor<4x3xf32> attributes {tg.symbols = [#tg.symbol<"T", 2, 16>]} {
  %0 = tg.slice %x starts = [T - 1, 0, 0] limits = [T, 6, 4] steps = [1, 2, 1] : tensor<?x6x4xf32, #tg.sizes<[T, 6, 4]>> to tensor<1x3x4xf32>
  %1 = tg.transpose %0 perm = [0, 2, 1] : tensor<1x3x4xf32> to tensor<1x4x3xf32>
  %2 = tg.reshape %1 : tensor<1x4x3xf32> to tensor<4x3xf32>
  return %2 : tensor<4x3xf32>
})",
      R"(func.func @f(%x: tensor<3x?x5xf32, #tg.sizes<[3, 2*T + 1, 5]>>) -> tensor<2x3x5xf32> attributes {tg.symbols = [#tg.symbol<"T", 2, 9>]} {
  %0 = tg.slice %x starts = [0, 2*T - 1, 0] limits = [3, 2*T + 1, 5] steps = [1, 1, 1] : tensor<3x?x5xf32, #tg.sizes<[3, 2*T + 1, 5]>> to tensor<3x2x5xf32>
  %1 = tg.transpose %0 perm = [1, 0, 2] : tensor<3x2x5xf32> to tensor<2x3x5xf32>
  return %1 : tensor<2x3x5xf32>
})",
      R"(func.func @f(%x: tensor<?x?x4xf32, #tg.sizes<[B, T, 4]>>) -> tensor<?x1x4xf32, #tg.sizes<[B, 1, 4]>> attributes {tg.symbols = [#tg.symbol<"B", 1, 5>, #tg.symbol<"T", 2, 7>]} {
  %0 = tg.slice %x starts = [0, T - 2, 0] limits = [B, T - 1, 4] steps = [1, 1, 1] : tensor<?x?x4xf32, #tg.sizes<[B, T, 4]>> to tensor<?x1x4xf32, #tg.sizes<[B, 1, 4]>>
  return %0 : tensor<?x1x4xf32, #tg.sizes<[B, 1, 4]>>
})",
  };
  mlir::MLIRContext& context = tg::compiler::sharedContext();
  int checked = 0;
  for (const char* text : chains) {
    SCOPED_TRACE(text);
    mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
    ASSERT_TRUE(module);
    auto func = module->lookupSymbol<mlir::func::FuncOp>("f");
    std::string error;
    const tg::codegen::SymbolicSizes symbolic(func, error);
    ASSERT_TRUE(error.empty()) << error;
    tg::codegen::SizeArguments args(symbolic);
    mlir::Value result = func.getBody().front().getTerminator()->getOperand(0);
    const std::optional<int64_t> most = symbolic.largest(symbolic.numel(result));
    ASSERT_TRUE(most);
    mlir::Value root;
    const std::optional<std::string> offset = tg::codegen::runtimeMappedOffset(result, args, *most, "", root);
    ASSERT_TRUE(offset);
    ASSERT_NE(offset->find("1 * z"), std::string::npos) << *offset;  // a run-time start
    for (int64_t b = symbolic.min[0]; b <= std::min<int64_t>(symbolic.max[0], 4); ++b)
      for (int64_t t = symbolic.names.size() > 1 ? symbolic.min[1] : 0; t <= (symbolic.names.size() > 1 ? symbolic.max[1] : 0); ++t) {
        std::vector<int64_t> values = {b};
        if (symbolic.names.size() > 1) values.push_back(t);
        mlir::OwningOpRef<mlir::ModuleOp> instance = tg::ir::instantiateModule(*module, values, error);
        ASSERT_TRUE(instance) << error;
        auto f = instance->lookupSymbol<mlir::func::FuncOp>("f");
        auto inType = mlir::cast<mlir::RankedTensorType>(f.getArgument(0).getType());
        tg::ref::HostTensor iota(tg::DType::F32, Shape(inType.getShape().begin(), inType.getShape().end()));
        for (int64_t i = 0; i < iota.numel(); ++i) reinterpret_cast<float*>(iota.mutableData())[i] = static_cast<float>(i);
        const std::vector<tg::ref::HostTensor> in{iota};
        const std::vector<tg::ref::HostTensor> reference = tg::ref::interpret(f, in);
        std::map<std::string, uint64_t> vars;
        for (size_t k = 0; k < args.exprs().size(); ++k)
          vars["z" + std::to_string(k) + "_"] = static_cast<uint64_t>(*args.exprs()[k].evaluate(values));
        for (int64_t i = 0; i < reference[0].numel(); ++i) {
          vars["i"] = static_cast<uint64_t>(i);
          ASSERT_EQ(CEval(*offset, vars).run(), static_cast<uint64_t>(reference[0].dataAs<float>()[i]))
              << "element " << i << " at sizes " << b << ", " << t << " reads " << *offset;
          ++checked;
        }
      }
  }
  EXPECT_GT(checked, 200);
}

}  // namespace
