//===- ElementwiseOps.cpp - The public elementwise ops and operators ------===//
#include "tg/Frontend/Dispatch.h"
#include "tg/Graph/ShapeRules.h"

namespace tg {

using detail::apply;
using detail::fail;
using graph::OpKind;

static Tensor unary(OpKind kind, const Tensor& x, const Loc& loc,
                    graph::OpAttrs attrs = {}) {
  return apply(kind, attrs, {x}, loc);
}

Tensor neg(const Tensor& x, Loc loc) { return unary(OpKind::Neg, x, loc); }
Tensor abs(const Tensor& x, Loc loc) { return unary(OpKind::Abs, x, loc); }
Tensor exp(const Tensor& x, Loc loc) { return unary(OpKind::Exp, x, loc); }
Tensor log(const Tensor& x, Loc loc) { return unary(OpKind::Log, x, loc); }
Tensor tanh(const Tensor& x, Loc loc) { return unary(OpKind::Tanh, x, loc); }
Tensor sigmoid(const Tensor& x, Loc loc) { return unary(OpKind::Sigmoid, x, loc); }
Tensor relu(const Tensor& x, Loc loc) { return unary(OpKind::Relu, x, loc); }
Tensor sqrt(const Tensor& x, Loc loc) { return unary(OpKind::Sqrt, x, loc); }
Tensor rsqrt(const Tensor& x, Loc loc) { return unary(OpKind::Rsqrt, x, loc); }
Tensor sin(const Tensor& x, Loc loc) { return unary(OpKind::Sin, x, loc); }
Tensor cos(const Tensor& x, Loc loc) { return unary(OpKind::Cos, x, loc); }
Tensor erf(const Tensor& x, Loc loc) { return unary(OpKind::Erf, x, loc); }
Tensor exp2(const Tensor& x, Loc loc) { return unary(OpKind::Exp2, x, loc); }
Tensor log2(const Tensor& x, Loc loc) { return unary(OpKind::Log2, x, loc); }
Tensor floor(const Tensor& x, Loc loc) { return unary(OpKind::Floor, x, loc); }
Tensor ceil(const Tensor& x, Loc loc) { return unary(OpKind::Ceil, x, loc); }
Tensor round(const Tensor& x, Loc loc) { return unary(OpKind::Round, x, loc); }
Tensor sign(const Tensor& x, Loc loc) { return unary(OpKind::Sign, x, loc); }
Tensor silu(const Tensor& x, Loc loc) { return unary(OpKind::Silu, x, loc); }
Tensor gelu(const Tensor& x, Gelu approximate, Loc loc) {
  graph::OpAttrs attrs;
  attrs.gelu = approximate == Gelu::Tanh ? graph::GeluApprox::Tanh : graph::GeluApprox::Erf;
  return unary(OpKind::Gelu, x, loc, attrs);
}

/// Elementwise `kind` on two tensors of one dtype, broadcast numpy-style.
static Tensor binary(OpKind kind, const Tensor& a, const Tensor& b, const Loc& loc,
                     graph::OpAttrs attrs = {}) {
  std::string_view op = graph::opName(kind);
  if (!a.defined() || !b.defined()) fail(op, "operand is an undefined tensor", loc);
  if (a.dtype() != b.dtype())
    fail(op,
         std::string("operands have different dtypes (") + dtype_name(a.dtype()) + " and " +
             dtype_name(b.dtype()) + "); tg does not promote implicitly, use tg::cast",
         loc);
  std::optional<Shape> shape = graph::broadcastShapes(a.shape(), b.shape());
  if (!shape)
    fail(op,
         "shapes " + format_shape(a.shape()) + " and " + format_shape(b.shape()) +
             " do not broadcast",
         loc);
  return apply(kind, attrs, {detail::broadcastTo(a, *shape, op, loc),
                             detail::broadcastTo(b, *shape, op, loc)},
               loc);
}

static Tensor withScalar(OpKind kind, const Tensor& a, double b, const Loc& loc,
                         graph::OpAttrs attrs = {}) {
  return binary(kind, a, detail::scalarLike(a, b, graph::opName(kind), loc), loc, attrs);
}

static Tensor scalarWith(OpKind kind, double a, const Tensor& b, const Loc& loc) {
  return binary(kind, detail::scalarLike(b, a, graph::opName(kind), loc), b, loc);
}

Tensor add(const Tensor& a, const Tensor& b, Loc loc) { return binary(OpKind::Add, a, b, loc); }
Tensor sub(const Tensor& a, const Tensor& b, Loc loc) { return binary(OpKind::Sub, a, b, loc); }
Tensor mul(const Tensor& a, const Tensor& b, Loc loc) { return binary(OpKind::Mul, a, b, loc); }
Tensor div(const Tensor& a, const Tensor& b, Loc loc) { return binary(OpKind::Div, a, b, loc); }
Tensor pow(const Tensor& a, const Tensor& b, Loc loc) { return binary(OpKind::Pow, a, b, loc); }
Tensor pow(const Tensor& a, Scalar b, Loc loc) { return withScalar(OpKind::Pow, a, b.value, loc); }
Tensor maximum(const Tensor& a, const Tensor& b, Loc loc) {
  return binary(OpKind::Maximum, a, b, loc);
}
Tensor maximum(const Tensor& a, Scalar b, Loc loc) {
  return withScalar(OpKind::Maximum, a, b.value, loc);
}
Tensor minimum(const Tensor& a, const Tensor& b, Loc loc) {
  return binary(OpKind::Minimum, a, b, loc);
}
Tensor minimum(const Tensor& a, Scalar b, Loc loc) {
  return withScalar(OpKind::Minimum, a, b.value, loc);
}

Tensor clamp(const Tensor& x, const Tensor& lo, const Tensor& hi, Loc loc) {
  if (!x.defined() || !lo.defined() || !hi.defined())
    fail("clamp", "operand is an undefined tensor", loc);
  for (const Tensor* bound : {&lo, &hi})
    if (bound->dtype() != x.dtype())
      fail("clamp",
           std::string("bounds must have the input's dtype (") + dtype_name(x.dtype()) + "), got " +
               dtype_name(bound->dtype()) + "; tg does not promote implicitly, use tg::cast",
           loc);
  std::optional<Shape> xl = graph::broadcastShapes(x.shape(), lo.shape());
  std::optional<Shape> shape = xl ? graph::broadcastShapes(*xl, hi.shape()) : std::nullopt;
  if (!shape)
    fail("clamp",
         "shapes " + format_shape(x.shape()) + ", " + format_shape(lo.shape()) + " and " +
             format_shape(hi.shape()) + " do not broadcast",
         loc);
  return apply(OpKind::Clamp, {},
               {detail::broadcastTo(x, *shape, "clamp", loc), detail::broadcastTo(lo, *shape, "clamp", loc),
                detail::broadcastTo(hi, *shape, "clamp", loc)},
               loc);
}

Tensor clamp(const Tensor& x, Scalar lo, Scalar hi, Loc loc) {
  if (!x.defined()) fail("clamp", "operand is an undefined tensor", loc);
  return clamp(x, detail::scalarLike(x, lo.value, "clamp", loc), detail::scalarLike(x, hi.value, "clamp", loc),
               loc);
}

static graph::OpAttrs predicate(graph::CmpPredicate p) {
  graph::OpAttrs attrs;
  attrs.predicate = p;
  return attrs;
}

Tensor eq(const Tensor& a, const Tensor& b, Loc loc) {
  return binary(OpKind::Compare, a, b, loc, predicate(graph::CmpPredicate::EQ));
}
Tensor ne(const Tensor& a, const Tensor& b, Loc loc) {
  return binary(OpKind::Compare, a, b, loc, predicate(graph::CmpPredicate::NE));
}
Tensor lt(const Tensor& a, const Tensor& b, Loc loc) {
  return binary(OpKind::Compare, a, b, loc, predicate(graph::CmpPredicate::LT));
}
Tensor le(const Tensor& a, const Tensor& b, Loc loc) {
  return binary(OpKind::Compare, a, b, loc, predicate(graph::CmpPredicate::LE));
}
Tensor gt(const Tensor& a, const Tensor& b, Loc loc) {
  return binary(OpKind::Compare, a, b, loc, predicate(graph::CmpPredicate::GT));
}
Tensor ge(const Tensor& a, const Tensor& b, Loc loc) {
  return binary(OpKind::Compare, a, b, loc, predicate(graph::CmpPredicate::GE));
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b, Loc loc) {
  if (!cond.defined() || !a.defined() || !b.defined())
    fail("select", "operand is an undefined tensor", loc);
  if (a.dtype() != b.dtype())
    fail("select",
         std::string("values have different dtypes (") + dtype_name(a.dtype()) + " and " +
             dtype_name(b.dtype()) + ")",
         loc);
  std::optional<Shape> ab = graph::broadcastShapes(a.shape(), b.shape());
  std::optional<Shape> shape = ab ? graph::broadcastShapes(cond.shape(), *ab) : std::nullopt;
  if (!shape)
    fail("select",
         "shapes " + format_shape(cond.shape()) + ", " + format_shape(a.shape()) + " and " +
             format_shape(b.shape()) + " do not broadcast",
         loc);
  return apply(OpKind::Select, {},
               {detail::broadcastTo(cond, *shape, "select", loc),
                detail::broadcastTo(a, *shape, "select", loc),
                detail::broadcastTo(b, *shape, "select", loc)},
               loc);
}

Tensor where(const Tensor& cond, const Tensor& a, Scalar b, Loc loc) {
  return where(cond, a, detail::scalarLike(a, b.value, "select", loc), loc);
}

Tensor where(const Tensor& cond, Scalar a, const Tensor& b, Loc loc) {
  return where(cond, detail::scalarLike(b, a.value, "select", loc), b, loc);
}

Tensor cast(const Tensor& x, DType dtype, Loc loc) {
  graph::OpAttrs attrs;
  attrs.dtype = dtype;
  return apply(OpKind::Cast, attrs, {x}, loc);
}

// Operators: the Located operand carries the expression's source line.
Tensor operator-(Located x) { return neg(x.tensor, x.loc); }
Tensor operator+(Located a, const Tensor& b) { return binary(OpKind::Add, a.tensor, b, a.loc); }
Tensor operator-(Located a, const Tensor& b) { return binary(OpKind::Sub, a.tensor, b, a.loc); }
Tensor operator*(Located a, const Tensor& b) { return binary(OpKind::Mul, a.tensor, b, a.loc); }
Tensor operator/(Located a, const Tensor& b) { return binary(OpKind::Div, a.tensor, b, a.loc); }
Tensor operator+(Located a, Scalar b) { return withScalar(OpKind::Add, a.tensor, b.value, a.loc); }
Tensor operator-(Located a, Scalar b) { return withScalar(OpKind::Sub, a.tensor, b.value, a.loc); }
Tensor operator*(Located a, Scalar b) { return withScalar(OpKind::Mul, a.tensor, b.value, a.loc); }
Tensor operator/(Located a, Scalar b) { return withScalar(OpKind::Div, a.tensor, b.value, a.loc); }
Tensor operator+(Scalar a, Located b) { return scalarWith(OpKind::Add, a.value, b.tensor, b.loc); }
Tensor operator-(Scalar a, Located b) { return scalarWith(OpKind::Sub, a.value, b.tensor, b.loc); }
Tensor operator*(Scalar a, Located b) { return scalarWith(OpKind::Mul, a.value, b.tensor, b.loc); }
Tensor operator/(Scalar a, Located b) { return scalarWith(OpKind::Div, a.value, b.tensor, b.loc); }
Tensor operator<(Located a, const Tensor& b) { return lt(a.tensor, b, a.loc); }
Tensor operator<=(Located a, const Tensor& b) { return le(a.tensor, b, a.loc); }
Tensor operator>(Located a, const Tensor& b) { return gt(a.tensor, b, a.loc); }
Tensor operator>=(Located a, const Tensor& b) { return ge(a.tensor, b, a.loc); }
Tensor operator<(Located a, Scalar b) {
  return withScalar(OpKind::Compare, a.tensor, b.value, a.loc, predicate(graph::CmpPredicate::LT));
}
Tensor operator<=(Located a, Scalar b) {
  return withScalar(OpKind::Compare, a.tensor, b.value, a.loc, predicate(graph::CmpPredicate::LE));
}
Tensor operator>(Located a, Scalar b) {
  return withScalar(OpKind::Compare, a.tensor, b.value, a.loc, predicate(graph::CmpPredicate::GT));
}
Tensor operator>=(Located a, Scalar b) {
  return withScalar(OpKind::Compare, a.tensor, b.value, a.loc, predicate(graph::CmpPredicate::GE));
}

}  // namespace tg
