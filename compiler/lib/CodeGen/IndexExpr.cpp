//===- IndexExpr.cpp - Offset arithmetic for generated kernels ------------===//
#include "IndexExpr.h"

#include "tg/Dialect/SymbolicTypes.h"

#include "tg/Dialect/TgOps.h"
#include "tg/Dialect/LayoutChain.h"

#include <cassert>
#include <limits>

namespace tg::codegen {

struct IndexExpr::Node {
  enum Kind { Var, Const, Div, Mod, Mul, Add } kind;
  std::string name;  // Var; for Div/Mod/Mul by a run-time extent, its member
  int64_t value = 0; // Const value; Div/Mod/Mul constant operand (a run-time one's largest)
  int64_t bound = 0; // exclusive upper bound
  std::shared_ptr<const Node> a, b;
};

namespace {

/// Bounds saturate at kHugeBound, above every bound a variable is given: a larger bound is
/// always sound (it only keeps a simplification from applying), and a variable whose bound is
/// unknown (1 << 62) times a stride must not overflow.
constexpr int64_t kHugeBound = std::numeric_limits<int64_t>::max();
int64_t boundProduct(int64_t a, int64_t b) {
  int64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) || r > kHugeBound ? kHugeBound : r;
}
int64_t boundSum(int64_t a, int64_t b) {
  int64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? kHugeBound : r;
}

}  // namespace

IndexExpr IndexExpr::var(const std::string& name, int64_t bound) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Var;
  n->name = name;
  n->bound = std::max<int64_t>(bound, 1);
  return IndexExpr(n);
}

IndexExpr IndexExpr::constant(int64_t value) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Const;
  n->value = value;
  n->bound = value + 1;
  return IndexExpr(n);
}

bool IndexExpr::isConstant(int64_t value) const {
  return node_->kind == Node::Const && node_->value == value;
}

int64_t IndexExpr::bound() const { return node_->bound; }

IndexExpr IndexExpr::operator/(int64_t d) const {
  assert(d > 0);
  if (d == 1) return *this;
  if (bound() <= d) return constant(0);
  if (node_->kind == Node::Const) return constant(node_->value / d);
  if (node_->kind == Node::Div && node_->name.empty()) return IndexExpr(node_->a) / (node_->value * d);
  auto n = std::make_shared<Node>();
  n->kind = Node::Div;
  n->a = node_;
  n->value = d;
  n->bound = boundSum(bound(), d - 1) / d;
  return IndexExpr(n);
}

IndexExpr IndexExpr::operator%(int64_t m) const {
  assert(m > 0);
  if (m == 1) return constant(0);
  if (bound() <= m) return *this;
  if (node_->kind == Node::Const) return constant(node_->value % m);
  auto n = std::make_shared<Node>();
  n->kind = Node::Mod;
  n->a = node_;
  n->value = m;
  n->bound = m;
  return IndexExpr(n);
}

IndexExpr IndexExpr::operator*(int64_t c) const {
  if (c == 0 || isConstant(0)) return constant(0);
  if (c == 1) return *this;
  if (node_->kind == Node::Const) return constant(node_->value * c);
  auto n = std::make_shared<Node>();
  n->kind = Node::Mul;
  n->a = node_;
  n->value = c;
  n->bound = boundSum(boundProduct(bound() - 1, c), 1);
  return IndexExpr(n);
}

IndexExpr IndexExpr::operator/(const Extent& d) const {
  if (d.isStatic()) return *this / d.value;
  if (bound() <= 1) return constant(0);
  auto n = std::make_shared<Node>();
  n->kind = Node::Div;
  n->a = node_;
  n->name = d.name;
  n->value = d.value;
  n->bound = bound();  // the divisor is at least 1
  return IndexExpr(n);
}

IndexExpr IndexExpr::operator%(const Extent& m) const {
  if (m.isStatic()) return *this % m.value;
  if (bound() <= 1) return *this;
  auto n = std::make_shared<Node>();
  n->kind = Node::Mod;
  n->a = node_;
  n->name = m.name;
  n->value = m.value;
  n->bound = std::min(bound(), m.value);
  return IndexExpr(n);
}

IndexExpr IndexExpr::operator*(const Extent& c) const {
  if (c.isStatic()) return *this * c.value;
  if (isConstant(0)) return constant(0);
  auto n = std::make_shared<Node>();
  n->kind = Node::Mul;
  n->a = node_;
  n->name = c.name;
  n->value = c.value;
  n->bound = boundSum(boundProduct(bound() - 1, c.value), 1);
  return IndexExpr(n);
}

IndexExpr IndexExpr::combine(const IndexExpr& q, const Extent& e, const IndexExpr& r) {
  const Node& rn = *r.node_;
  const bool sameExtent = rn.kind == Node::Mod && rn.name == e.name && (!e.isStatic() || rn.value == e.value);
  if (sameExtent) {
    const IndexExpr a(rn.a);
    const Node& qn = *q.node_;
    // q = a / e
    if (qn.kind == Node::Div && qn.name == e.name && (!e.isStatic() || qn.value == e.value) && sameExpr(IndexExpr(qn.a), a))
      return a;
    // Static: a = x / c and q = x / (c * e), the two divisions merged.
    const Node& an = *rn.a;
    if (e.isStatic() && qn.kind == Node::Div && qn.name.empty() && an.kind == Node::Div && an.name.empty() &&
        qn.value == an.value * e.value && sameExpr(IndexExpr(qn.a), IndexExpr(an.a)))
      return a;
  }
  return q * e + r;
}

IndexExpr IndexExpr::operator+(const IndexExpr& other) const {
  if (isConstant(0)) return other;
  if (other.isConstant(0)) return *this;
  auto n = std::make_shared<Node>();
  n->kind = Node::Add;
  n->a = node_;
  n->b = other.node_;
  n->bound = boundSum(bound(), other.bound() - 1);
  return IndexExpr(n);
}

bool sameExpr(const IndexExpr& x, const IndexExpr& y) {
  const IndexExpr::Node *a = x.node_.get(), *b = y.node_.get();
  if (a == b) return true;
  if (a->kind != b->kind || a->value != b->value || a->name != b->name) return false;
  if (bool(a->a) != bool(b->a) || bool(a->b) != bool(b->b)) return false;
  if (a->a && !sameExpr(IndexExpr(a->a), IndexExpr(b->a))) return false;
  if (a->b && !sameExpr(IndexExpr(a->b), IndexExpr(b->b))) return false;
  return true;
}

std::string IndexExpr::str(const std::string& suffix) const {
  const Node& n = *node_;
  // A Div/Mod/Mul operand: the literal, or a run-time extent cast to the index type.
  auto lit = [&](int64_t v) {
    if (n.kind == Node::Var || n.name.empty()) return std::to_string(v) + suffix;
    return (suffix == "u" ? "(unsigned)" : suffix == "ull" ? "(unsigned long long)" : "") + n.name;
  };
  // The operand of /, % and *: a sum binds looser than they do in C, so it is parenthesised
  // ("(a + b) % 4", never "a + b % 4"). Products and quotients need none: C's * / % are
  // left-associative at one precedence, so "a * 4 / 8" is (a * 4) / 8.
  auto operand = [&](const std::shared_ptr<const Node>& a) {
    std::string s = IndexExpr(a).str(suffix);
    return a->kind == Node::Add ? "(" + s + ")" : s;
  };
  // / and %: a 32-bit index divided by a run-time extent takes the prelude's multiply-high
  // division (tg_udiv, tg_umod).
  auto divide = [&](const char* fn, const char* op) {
    const bool fast = suffix == "u" && !n.name.empty();
    std::string out = fast ? std::string(fn) + "(" : std::string("(");
    out += fast ? IndexExpr(n.a).str(suffix) : operand(n.a);
    out += fast ? ", " : std::string(" ") + op + " ";  // (appends: GCC 12 warns wrongly of a chain of +)
    out += lit(n.value);
    return out + ")";
  };
  switch (n.kind) {
    case Node::Var: return n.name;
    case Node::Const: return lit(n.value);
    case Node::Div: return divide("tg_udiv", "/");
    case Node::Mod: return divide("tg_umod", "%");
    case Node::Mul: return operand(n.a) + " * " + lit(n.value);
    case Node::Add: return IndexExpr(n.a).str(suffix) + " + " + IndexExpr(n.b).str(suffix);
  }
  return "?";
}

DimIndices delinearize(const IndexExpr& linear, const Shape& shape) {
  DimIndices out;
  out.shape = shape;
  int64_t stride = 1;
  std::vector<IndexExpr> reversed;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    reversed.push_back((linear / stride) % shape[d]);
    stride *= shape[d];
  }
  out.dims.assign(reversed.rbegin(), reversed.rend());
  out.linear = std::make_shared<IndexExpr>(linear);
  return out;
}

DimIndices delinearizeExtents(const IndexExpr& linear, const std::vector<Extent>& shape) {
  DimIndices out;
  out.dims.assign(shape.size(), IndexExpr::constant(0));
  IndexExpr rest = linear;  // the linear index divided by the strides of the dims after d
  for (size_t d = shape.size(); d-- > 0;) {
    out.dims[d] = d == 0 ? rest : rest % shape[d];
    if (d > 0) rest = rest / shape[d];
  }
  return out;
}

IndexExpr linearizeExtents(const std::vector<IndexExpr>& dims, const std::vector<Extent>& shape) {
  if (dims.empty()) return IndexExpr::constant(0);
  IndexExpr sum = dims[0];
  for (size_t d = 1; d < dims.size(); ++d) sum = IndexExpr::combine(sum, shape[d], dims[d]);
  return sum;
}

std::optional<std::vector<IndexExpr>> mapToRootExtents(mlir::Value value, std::vector<IndexExpr> idx,
                                                       const ExtentsOf& extentsOf, mlir::Value& root,
                                                       const SliceStartOf& startOf) {
  LayoutChain chain = traceLayout(value);
  for (mlir::Operation* op : chain.ops) {  // from the value back to the root
    std::optional<std::vector<Extent>> in = extentsOf(op->getOperand(0)), out = extentsOf(op->getResult(0));
    if (!in || !out) return std::nullopt;
    std::vector<IndexExpr> next;
    if (auto b = mlir::dyn_cast<ir::BroadcastOp>(op)) {
      for (size_t k = 0; k < in->size(); ++k)
        next.push_back((*in)[k].isStatic() && (*in)[k].value == 1 ? IndexExpr::constant(0) : idx[b.getDims()[k]]);
    } else if (auto t = mlir::dyn_cast<ir::TransposeOp>(op)) {
      next.assign(in->size(), IndexExpr::constant(0));
      for (size_t d = 0; d < t.getPerm().size(); ++d) next[t.getPerm()[d]] = idx[d];
    } else if (auto s = mlir::dyn_cast<ir::SliceOp>(op)) {  // start + i * step, per dim
      for (size_t d = 0; d < in->size(); ++d) {
        if (mlir::ShapedType::isDynamic(s.getSteps()[d])) return std::nullopt;
        if (mlir::ShapedType::isDynamic(s.getStarts()[d])) {  // a run-time start (x[T - 1])
          std::optional<Extent> start = startOf ? startOf(op, d) : std::nullopt;
          if (!start) return std::nullopt;
          next.push_back(idx[d] * s.getSteps()[d] + IndexExpr::constant(1) * *start);
          continue;
        }
        next.push_back(idx[d] * s.getSteps()[d] + IndexExpr::constant(s.getStarts()[d]));
      }
    } else if (mlir::isa<ir::ReshapeOp>(op)) {  // the same linear index
      next = delinearizeExtents(linearizeExtents(idx, *out), *in).dims;
    } else {
      return std::nullopt;
    }
    idx = std::move(next);
  }
  root = chain.root;
  return idx;
}

IndexExpr linearize(const DimIndices& idx) {
  if (idx.linear) return *idx.linear;
  IndexExpr sum = IndexExpr::constant(0);
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(idx.shape.size()) - 1; d >= 0; --d) {
    sum = idx.dims[d] * stride + sum;
    if (d > 0) stride *= idx.shape[d];  // (the first extent is no stride: it may be dynamic)
  }
  return sum;
}

std::string iotaOperand(mlir::Operation* iota, const DimIndices& idx, const std::string& suffix) {
  const auto axis = static_cast<size_t>(mlir::cast<ir::IotaOp>(iota).getAxis());
  return idx.dims.at(axis).str(suffix);
}

bool staticIndexable(mlir::Value value) {
  LayoutChain chain = traceLayout(value);
  for (mlir::Operation* op : chain.ops) {
    if (!mlir::isa<ir::BroadcastOp>(op) &&
        (ir::isSymbolic(op->getOperand(0).getType()) || ir::isSymbolic(op->getResult(0).getType())))
      return false;
    // A slice whose bounds are sizes (a window at T of a static tensor): `?` is no number.
    if (auto slice = mlir::dyn_cast<ir::SliceOp>(op))
      if (slice.getSymStarts() || slice.getSymLimits() || slice.getSymSteps()) return false;
  }
  auto rootType = mlir::cast<mlir::RankedTensorType>(chain.root.getType());
  for (int64_t d = 1; d < rootType.getRank(); ++d)
    if (mlir::ShapedType::isDynamic(rootType.getDimSize(d))) return false;
  return true;
}

DimIndices mapToRoot(mlir::Value value, DimIndices idx, mlir::Value& root) {
  LayoutChain chain = traceLayout(value);
  for (mlir::Operation* op : chain.ops) {  // from the value back to the root
    auto operandType = mlir::cast<mlir::RankedTensorType>(op->getOperand(0).getType());
    Shape in(operandType.getShape().begin(), operandType.getShape().end());
    DimIndices next;
    next.shape = in;
    if (auto b = mlir::dyn_cast<ir::BroadcastOp>(op)) {
      for (size_t k = 0; k < in.size(); ++k)
        next.dims.push_back(in[k] == 1 ? IndexExpr::constant(0) : idx.dims[b.getDims()[k]]);
    } else if (auto t = mlir::dyn_cast<ir::TransposeOp>(op)) {
      next.dims.assign(in.size(), IndexExpr::constant(0));
      for (size_t d = 0; d < t.getPerm().size(); ++d) next.dims[t.getPerm()[d]] = idx.dims[d];
    } else if (auto s = mlir::dyn_cast<ir::SliceOp>(op)) {  // start + i * step, per dim
      for (size_t d = 0; d < in.size(); ++d)
        next.dims.push_back(idx.dims[d] * s.getSteps()[d] + IndexExpr::constant(s.getStarts()[d]));
    } else {  // reshape: same linear index
      next = delinearize(linearize(idx), in);
    }
    idx = std::move(next);
  }
  root = chain.root;
  return idx;
}

}  // namespace tg::codegen
