//===- ScoreMask.cpp - Which blocks of an attention's scores a mask removes ===//
#include "ScoreMask.h"

#include "KernelEmission.h"
#include "ScalarMath.h"

#include "tg/Dialect/LayoutChain.h"
#include "tg/Dialect/OpDescription.h"

#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <optional>
#include <sstream>

using namespace mlir;

namespace tg::codegen {

namespace {

/// Whether `v` is -inf everywhere: a splat, or a layout of one (a broadcast scalar: how a splat
/// over dynamic dims is written).
bool isNegativeInfinity(Value v) {
  DenseElementsAttr splat = splatValue(traceLayout(v).root);
  if (!splat || !isa<FloatType>(splat.getElementType())) return false;
  APFloat f = splat.getSplatValue<APFloat>();
  return f.isInfinity() && f.isNegative();
}

/// One index's range over the block: C expressions (long long) and whether lo == hi always.
struct DimRange {
  std::string lo, hi;
  bool exact = false;
};
/// A number's range (C doubles) and a boolean's possibilities (C bools).
struct Range {
  std::string lo, hi;
};
struct Truth {
  std::string mayTrue = "true", mayFalse = "true";
};

class RangeWriter {
 public:
  RangeWriter(std::ostringstream& os, const DimTexts& dims) : os_(os), dims_(dims) {}

  std::optional<Range> number(Value v, const std::vector<DimRange>& idx) {
    if (DenseElementsAttr splat = splatValue(v)) {
      std::optional<double> c = splatDouble(splat);
      if (!c) return std::nullopt;
      std::ostringstream lit;
      lit.precision(17);
      lit << *c;
      return Range{lit.str(), lit.str()};
    }
    Operation* def = v.getDefiningOp();
    if (!def) {
      std::optional<std::string> x = load(v, idx);
      if (!x) return std::nullopt;
      const std::string n = fresh("rv");
      os_ << "    const double " << n << " = (double)(" << *x << ");\n";
      return Range{n, n};
    }
    if (isLayoutOp(def)) {
      std::optional<std::vector<DimRange>> in = mapLayout(def, idx);
      if (!in) return std::nullopt;
      return number(def->getOperand(0), *in);
    }
    if (auto iota = dyn_cast<ir::IotaOp>(def)) {
      const DimRange& d = idx.at(static_cast<size_t>(iota.getAxis()));
      return Range{"(double)(" + d.lo + ")", "(double)(" + d.hi + ")"};
    }
    if (auto select = dyn_cast<ir::SelectOp>(def)) {
      Truth c = truth(select.getCondition(), idx);
      std::optional<Range> a = number(select.getTrueValue(), idx), b = number(select.getFalseValue(), idx);
      if (!a || !b) return std::nullopt;
      return bind("(" + c.mayTrue + " && " + c.mayFalse + ") ? fmin(" + a->lo + ", " + b->lo + ") : " + c.mayTrue +
                      " ? " + a->lo + " : " + b->lo,
                  "(" + c.mayTrue + " && " + c.mayFalse + ") ? fmax(" + a->hi + ", " + b->hi + ") : " + c.mayTrue +
                      " ? " + a->hi + " : " + b->hi);
    }
    std::optional<ir::OpDescription> d = ir::describeOp(def);
    if (!d) return std::nullopt;
    using graph::OpKind;
    if (d->kind == OpKind::Cast) {
      std::optional<Range> x = number(def->getOperand(0), idx);
      const DType to = dtypeOfValue(def->getResult(0));
      if (!x || to == DType::Bool) return std::nullopt;
      // Conversions are monotone: the range's ends converted bound the converted values.
      auto convert = [&](const std::string& e) -> std::string {
        switch (to) {
          case DType::I32: return "(double)(int)(" + e + ")";
          case DType::BF16: return "(double)tg_round_bf16((float)(" + e + "))";
          case DType::F16: return "(double)tg_round_f16((float)(" + e + "))";
          default: return "(double)(float)(" + e + ")";
        }
      };
      return bind(convert(x->lo), convert(x->hi));
    }
    if (d->kind == OpKind::Neg) {
      std::optional<Range> x = number(def->getOperand(0), idx);
      if (!x) return std::nullopt;
      return bind("-(" + x->hi + ")", "-(" + x->lo + ")");
    }
    if (def->getNumOperands() != 2) return std::nullopt;
    std::optional<Range> a = number(def->getOperand(0), idx), b = number(def->getOperand(1), idx);
    if (!a || !b) return std::nullopt;
    switch (d->kind) {
      case OpKind::Add: return bind(a->lo + " + " + b->lo, a->hi + " + " + b->hi);
      case OpKind::Sub: return bind(a->lo + " - " + b->hi, a->hi + " - " + b->lo);
      case OpKind::Maximum: return bind("fmax(" + a->lo + ", " + b->lo + ")", "fmax(" + a->hi + ", " + b->hi + ")");
      case OpKind::Minimum: return bind("fmin(" + a->lo + ", " + b->lo + ")", "fmin(" + a->hi + ", " + b->hi + ")");
      case OpKind::Mul: {
        const std::string p = fresh("rp");
        os_ << "    const double " << p << "0 = " << a->lo << " * " << b->lo << ", " << p << "1 = " << a->lo << " * "
            << b->hi << ", " << p << "2 = " << a->hi << " * " << b->lo << ", " << p << "3 = " << a->hi << " * " << b->hi
            << ";\n";
        return bind("fmin(fmin(" + p + "0, " + p + "1), fmin(" + p + "2, " + p + "3))",
                    "fmax(fmax(" + p + "0, " + p + "1), fmax(" + p + "2, " + p + "3))");
      }
      default: return std::nullopt;
    }
  }

  Truth truth(Value v, const std::vector<DimRange>& idx) {
    if (DenseElementsAttr splat = splatValue(v)) {
      if (!splat.getElementType().isInteger(1)) return {};
      const bool b = splat.getSplatValue<bool>();
      return Truth{b ? "true" : "false", b ? "false" : "true"};
    }
    Operation* def = v.getDefiningOp();
    if (!def) {
      std::optional<std::string> x = load(v, idx);
      if (!x) return {};
      const std::string n = fresh("rb");
      os_ << "    const bool " << n << " = (" << *x << ") != 0;\n";
      return Truth{n, "!" + n};
    }
    if (isLayoutOp(def)) {
      std::optional<std::vector<DimRange>> in = mapLayout(def, idx);
      if (!in) return {};
      return truth(def->getOperand(0), *in);
    }
    if (auto select = dyn_cast<ir::SelectOp>(def)) {
      Truth c = truth(select.getCondition(), idx), x = truth(select.getTrueValue(), idx),
            y = truth(select.getFalseValue(), idx);
      return boolean("(" + c.mayTrue + " && " + x.mayTrue + ") || (" + c.mayFalse + " && " + y.mayTrue + ")",
                     "(" + c.mayTrue + " && " + x.mayFalse + ") || (" + c.mayFalse + " && " + y.mayFalse + ")");
    }
    if (auto cmp = dyn_cast<ir::CmpOp>(def)) {
      std::optional<Range> a = number(cmp.getLhs(), idx), b = number(cmp.getRhs(), idx);
      if (!a || !b) return {};
      const std::string alo = a->lo, ahi = a->hi, blo = b->lo, bhi = b->hi;
      switch (cmp.getPredicate()) {
        case ir::CmpPredicate::lt: return boolean(alo + " < " + bhi, ahi + " >= " + blo);
        case ir::CmpPredicate::le: return boolean(alo + " <= " + bhi, ahi + " > " + blo);
        case ir::CmpPredicate::gt: return boolean(ahi + " > " + blo, alo + " <= " + bhi);
        case ir::CmpPredicate::ge: return boolean(ahi + " >= " + blo, alo + " < " + bhi);
        case ir::CmpPredicate::eq:
        case ir::CmpPredicate::ne: {
          const std::string overlap = alo + " <= " + bhi + " && " + blo + " <= " + ahi;
          const std::string single = "(" + alo + " == " + ahi + " && " + blo + " == " + bhi + " && " + alo + " == " + blo + ")";
          return cmp.getPredicate() == ir::CmpPredicate::eq ? boolean(overlap, "!" + single)
                                                            : boolean("!" + single, overlap);
        }
      }
      return {};
    }
    if (std::optional<ir::OpDescription> d = ir::describeOp(def); d && d->kind == graph::OpKind::Cast) {
      std::optional<Range> x = number(def->getOperand(0), idx);
      if (!x) return {};
      return boolean("!(" + x->lo + " == 0.0 && " + x->hi + " == 0.0)", x->lo + " <= 0.0 && " + x->hi + " >= 0.0");
    }
    return {};
  }

 private:
  std::string fresh(const char* prefix) { return numbered(prefix, counter_++); }

  Range bind(const std::string& lo, const std::string& hi) {
    const std::string n = fresh("rr");
    os_ << "    const double " << n << "lo = " << lo << ", " << n << "hi = " << hi << ";\n";
    return Range{n + "lo", n + "hi"};
  }
  Truth boolean(const std::string& mayTrue, const std::string& mayFalse) {
    const std::string n = fresh("rt");
    os_ << "    const bool " << n << "t = " << mayTrue << ", " << n << "f = " << mayFalse << ";\n";
    return Truth{n + "t", n + "f"};
  }

  static std::optional<double> splatDouble(DenseElementsAttr splat) {
    Type e = splat.getElementType();
    if (isa<FloatType>(e)) return splat.getSplatValue<APFloat>().convertToDouble();
    if (e.isInteger(1)) return splat.getSplatValue<bool>() ? 1.0 : 0.0;
    if (e.isInteger()) return static_cast<double>(splat.getSplatValue<APInt>().getSExtValue());
    return std::nullopt;
  }

  /// Input `v` read at `idx` when every index is one element: the C expression of its value.
  std::optional<std::string> load(Value v, const std::vector<DimRange>& idx) {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg) return std::nullopt;
    std::optional<std::vector<std::string>> extents = dims_(v);
    if (!extents) return std::nullopt;
    std::string linear = "0ll", stride = "1ll";
    for (int64_t d = static_cast<int64_t>(extents->size()) - 1; d >= 0; --d) {
      const DimRange& r = idx.at(static_cast<size_t>(d));
      if (!r.exact) return std::nullopt;
      linear += " + (" + r.lo + ") * " + stride;
      stride += " * " + (*extents)[static_cast<size_t>(d)];
    }
    return loadConvert(dtypeOfValue(v), numbered("in", arg.getArgNumber()) + "[" + linear + "]");
  }

  /// The ranges of the indices of layout op `op`'s operand, from its result's.
  std::optional<std::vector<DimRange>> mapLayout(Operation* op, const std::vector<DimRange>& idx) {
    auto inType = cast<RankedTensorType>(op->getOperand(0).getType());
    const auto in = inType.getShape();
    std::vector<DimRange> next;
    const DimRange zero{"0ll", "0ll", true};
    if (auto b = dyn_cast<ir::BroadcastOp>(op)) {
      for (size_t k = 0; k < in.size(); ++k) next.push_back(in[k] == 1 ? zero : idx.at(static_cast<size_t>(b.getDims()[k])));
      return next;
    }
    if (auto t = dyn_cast<ir::TransposeOp>(op)) {
      next.assign(in.size(), zero);
      for (size_t d = 0; d < t.getPerm().size(); ++d) next[static_cast<size_t>(t.getPerm()[d])] = idx[d];
      return next;
    }
    if (auto s = dyn_cast<ir::SliceOp>(op)) {
      for (size_t d = 0; d < in.size(); ++d) {
        const std::string step = std::to_string(s.getSteps()[d]) + "ll", start = std::to_string(s.getStarts()[d]) + "ll";
        next.push_back({"(" + idx[d].lo + ") * " + step + " + " + start, "(" + idx[d].hi + ") * " + step + " + " + start,
                        idx[d].exact});
      }
      return next;
    }
    if (!isa<ir::ReshapeOp>(op)) return std::nullopt;
    // Reshape: the same linear index. With at most one index a range, the linear index is
    // one range; each operand index is (linear / stride) % extent, whose range is exact
    // between the ends when they fall in one period of the extent, else the whole extent.
    std::optional<std::vector<std::string>> out = dims_(op->getResult(0)), inText = dims_(op->getOperand(0));
    if (!out || !inText) return std::nullopt;
    int ranges = 0;
    std::string lo = "0ll", hi = "0ll", stride = "1ll";
    for (int64_t d = static_cast<int64_t>(out->size()) - 1; d >= 0; --d) {
      const DimRange& r = idx.at(static_cast<size_t>(d));
      ranges += !r.exact;
      lo += " + (" + r.lo + ") * " + stride;
      hi += " + (" + r.hi + ") * " + stride;
      stride += " * " + (*out)[static_cast<size_t>(d)];
    }
    if (ranges > 1) return std::nullopt;
    const std::string l = fresh("rl");
    os_ << "    const long long " << l << "lo = " << lo << ", " << l << "hi = " << hi << ";\n";
    next.assign(in.size(), zero);
    stride = "1ll";
    for (int64_t d = static_cast<int64_t>(in.size()) - 1; d >= 0; --d) {
      const int64_t n = in[static_cast<size_t>(d)];  // (dynamic: not 1)
      const std::string st = "(" + stride + ")", ext = "(" + (*inText)[static_cast<size_t>(d)] + ")";
      stride += " * " + (*inText)[static_cast<size_t>(d)];
      if (n == 1) continue;
      if (ranges == 0) {
        const std::string e = "(" + l + "lo / " + st + ") % " + ext;
        next[static_cast<size_t>(d)] = {e, e, true};
        continue;
      }
      const std::string q = fresh("rq");
      os_ << "    const long long " << q << "a = " << l << "lo / " << st << ", " << q << "b = " << l << "hi / " << st
          << ";\n    const bool " << q << "s = " << q << "a / " << ext << " == " << q << "b / " << ext << ";\n";
      next[static_cast<size_t>(d)] = {q + "s ? " + q + "a % " + ext + " : 0ll",
                                      q + "s ? " + q + "b % " + ext + " : " + ext + " - 1ll", false};
    }
    return next;
  }

  std::ostringstream& os_;
  const DimTexts& dims_;
  int counter_ = 0;
};

}  // namespace

ScoreMasks findScoreMasks(Value scores) {
  ScoreMasks m;
  Value v = scores;
  while (Operation* def = v.getDefiningOp()) {
    if (auto cast = dyn_cast<ir::CastOp>(def); cast && isa<FloatType>(getElementTypeOrSelf(cast.getInput().getType()))) {
      v = cast.getInput();  // float to float keeps -inf
      continue;
    }
    auto select = dyn_cast<ir::SelectOp>(def);
    if (!select) break;
    if (isNegativeInfinity(select.getFalseValue())) {
      m.masks.push_back({select.getResult(), false, select.getTrueValue()});
      v = select.getTrueValue();
    } else if (isNegativeInfinity(select.getTrueValue())) {
      m.masks.push_back({select.getResult(), true, select.getFalseValue()});
      v = select.getFalseValue();
    } else {
      break;
    }
  }
  return m;
}

std::string blockMaskBody(const ScoreMasks& masks, mlir::Value scores, const DimTexts& dims) {
  std::ostringstream os;
  RangeWriter w(os, dims);
  // (b, m, s): the batch dims exact (from the flat b), the row and the key ranges.
  std::vector<DimRange> idx;
  std::string stride = "1ll";
  std::vector<std::string> batch;
  const std::optional<std::vector<std::string>> scoreDims = dims(scores);
  if (!scoreDims) return "    mayVisible = true;\n    mayMasked = true;\n";  // nothing known
  for (int64_t d = static_cast<int64_t>(scoreDims->size()) - 3; d >= 0; --d) {
    const std::string e = "(b / (" + stride + ")) % (" + (*scoreDims)[static_cast<size_t>(d)] + ")";
    batch.insert(batch.begin(), e);
    stride += " * " + (*scoreDims)[static_cast<size_t>(d)];
  }
  for (const std::string& e : batch) idx.push_back({e, e, true});
  idx.push_back({"mLo", "mHi", false});
  idx.push_back({"sLo", "sHi", false});
  os << "    mayVisible = true;\n    mayMasked = false;\n";
  for (const ScoreMasks::Mask& mask : masks.masks) {
    Truth t = w.truth(cast<ir::SelectOp>(mask.select.getDefiningOp()).getCondition(), idx);
    const std::string& keeps = mask.maskedWhenTrue ? t.mayFalse : t.mayTrue;
    const std::string& removes = mask.maskedWhenTrue ? t.mayTrue : t.mayFalse;
    os << "    mayVisible = mayVisible && (" << keeps << ");\n    mayMasked = mayMasked || (" << removes << ");\n";
  }
  return os.str();
}

DimTexts staticDimTexts() {
  return [](mlir::Value v) -> std::optional<std::vector<std::string>> {
    std::vector<std::string> out;
    for (int64_t n : cast<RankedTensorType>(v.getType()).getShape()) {
      if (ShapedType::isDynamic(n)) return std::nullopt;
      out.push_back(std::to_string(n) + "ll");
    }
    return out;
  };
}

}  // namespace tg::codegen
