//===- OpDescription.cpp - Reading and building tg ops in graph terms -----===//
#include "tg/Dialect/OpDescription.h"

#include "tg/Dialect/TgOps.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using tg::graph::OpKind;

namespace tg::ir {

std::optional<DType> dtypeOf(Type t) {
  if (t.isF32()) return DType::F32;
  if (t.isF16()) return DType::F16;
  if (t.isBF16()) return DType::BF16;
  if (t.isSignlessInteger(32)) return DType::I32;
  if (t.isSignlessInteger(1)) return DType::Bool;
  return std::nullopt;
}

Type elementTypeOf(MLIRContext* context, DType dtype) {
  Builder b(context);
  switch (dtype) {
    case DType::F32: return b.getF32Type();
    case DType::F16: return b.getF16Type();
    case DType::BF16: return b.getBF16Type();
    case DType::I32: return b.getI32Type();
    case DType::Bool: return b.getI1Type();
  }
  return {};
}

std::optional<graph::TensorType> typeOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  // An encoding means nothing to tg: the shape rules and code generation would drop it.
  if (!tensor || !tensor.hasStaticShape() || tensor.getEncoding()) return std::nullopt;
  std::optional<DType> dtype = dtypeOf(tensor.getElementType());
  if (!dtype) return std::nullopt;
  // Never getNumElements(): it would overflow for tensor<4294967296x4294967296xf32>.
  graph::TensorType t{*dtype, Shape(tensor.getShape().begin(), tensor.getShape().end())};
  if (!tensor_size_error(t.dtype, t.shape).empty()) return std::nullopt;
  return t;
}

std::string whyNotTgTensor(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor) return text + " is not a ranked tensor";
  if (isa_and_present<SizesAttr>(tensor.getEncoding()))
    return text + " has dynamic dims (#tg.sizes): only values in a function with tg.symbols may";
  if (!tensor.hasStaticShape()) return text + " is not statically shaped";
  if (tensor.getEncoding()) return text + " has an encoding, which tg does not support";
  std::optional<DType> dtype = dtypeOf(tensor.getElementType());
  if (!dtype) return text + " does not have a tg element type (f32, f16, bf16, i32 or i1)";
  std::string size = tensor_size_error(*dtype, Shape(tensor.getShape().begin(), tensor.getShape().end()));
  return size.empty() ? std::string() : text + ": " + size;
}

RankedTensorType tensorTypeOf(MLIRContext* context, const graph::TensorType& type) {
  return RankedTensorType::get(type.shape, elementTypeOf(context, type.dtype));
}

static graph::CmpPredicate toGraph(CmpPredicate p) {
  return static_cast<graph::CmpPredicate>(static_cast<int>(p));
}
static CmpPredicate fromGraph(graph::CmpPredicate p) {
  return static_cast<CmpPredicate>(static_cast<int>(p));
}

static Shape resultShape(Operation* op) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  return Shape(type.getShape().begin(), type.getShape().end());
}

std::optional<OpDescription> describeOp(Operation* op) {
  OpDescription d{OpKind::Input, {}};
  auto simple = [&](OpKind kind) {
    d.kind = kind;
    return true;
  };
  bool known =
      llvm::TypeSwitch<Operation*, bool>(op)
          .Case([&](ConstantOp c) {
            d.kind = OpKind::Constant;
            d.attrs.shape = resultShape(op);
            d.attrs.dtype = dtypeOf(c.getType().getElementType()).value_or(DType::F32);
            return true;
          })
          .Case([&](NegOp) { return simple(OpKind::Neg); })
          .Case([&](AbsOp) { return simple(OpKind::Abs); })
          .Case([&](ExpOp) { return simple(OpKind::Exp); })
          .Case([&](LogOp) { return simple(OpKind::Log); })
          .Case([&](TanhOp) { return simple(OpKind::Tanh); })
          .Case([&](SigmoidOp) { return simple(OpKind::Sigmoid); })
          .Case([&](ReluOp) { return simple(OpKind::Relu); })
          .Case([&](SqrtOp) { return simple(OpKind::Sqrt); })
          .Case([&](RsqrtOp) { return simple(OpKind::Rsqrt); })
          .Case([&](SinOp) { return simple(OpKind::Sin); })
          .Case([&](CosOp) { return simple(OpKind::Cos); })
          .Case([&](ErfOp) { return simple(OpKind::Erf); })
          .Case([&](Exp2Op) { return simple(OpKind::Exp2); })
          .Case([&](Log2Op) { return simple(OpKind::Log2); })
          .Case([&](FloorOp) { return simple(OpKind::Floor); })
          .Case([&](CeilOp) { return simple(OpKind::Ceil); })
          .Case([&](RoundOp) { return simple(OpKind::Round); })
          .Case([&](SignOp) { return simple(OpKind::Sign); })
          .Case([&](SiluOp) { return simple(OpKind::Silu); })
          .Case([&](ClampOp) { return simple(OpKind::Clamp); })
          .Case([&](ConcatOp c) {
            d.kind = OpKind::Concat;
            d.attrs.axis = static_cast<int64_t>(c.getAxis());
            return true;
          })
          .Case([&](GatherOp g) {
            d.kind = OpKind::Gather;
            d.attrs.axis = static_cast<int64_t>(g.getAxis());
            d.attrs.checkId = static_cast<int64_t>(g.getCheck());
            return true;
          })
          .Case([&](DynamicSliceOp ds) {
            d.kind = OpKind::DynamicSlice;
            d.attrs.axis = static_cast<int64_t>(ds.getAxis());
            d.attrs.checkId = static_cast<int64_t>(ds.getCheck());
            d.attrs.shape = resultShape(op);
            return true;
          })
          .Case([&](DynamicUpdateSliceOp u) {
            d.kind = OpKind::DynamicUpdateSlice;
            d.attrs.axis = static_cast<int64_t>(u.getAxis());
            d.attrs.checkId = static_cast<int64_t>(u.getCheck());
            d.attrs.starts.assign(u.getOffsets().begin(), u.getOffsets().end());
            return true;
          })
          .Case([&](IotaOp i) {
            d.kind = OpKind::Iota;
            d.attrs.shape = resultShape(op);
            d.attrs.dtype = dtypeOf(i.getType().getElementType()).value_or(DType::F32);
            d.attrs.axis = static_cast<int64_t>(i.getAxis());
            return true;
          })
          .Case([&](GeluOp g) {
            d.kind = OpKind::Gelu;
            d.attrs.gelu = g.getApproximate() == GeluApprox::tanh ? graph::GeluApprox::Tanh
                                                                  : graph::GeluApprox::Erf;
            return true;
          })
          .Case([&](AddOp) { return simple(OpKind::Add); })
          .Case([&](SubOp) { return simple(OpKind::Sub); })
          .Case([&](MulOp) { return simple(OpKind::Mul); })
          .Case([&](DivOp) { return simple(OpKind::Div); })
          .Case([&](PowOp) { return simple(OpKind::Pow); })
          .Case([&](MaximumOp) { return simple(OpKind::Maximum); })
          .Case([&](MinimumOp) { return simple(OpKind::Minimum); })
          .Case([&](CmpOp c) {
            d.kind = OpKind::Compare;
            d.attrs.predicate = toGraph(c.getPredicate());
            return true;
          })
          .Case([&](SelectOp) { return simple(OpKind::Select); })
          .Case([&](CastOp c) {
            d.kind = OpKind::Cast;
            d.attrs.dtype =
                dtypeOf(getElementTypeOrSelf(c.getResult().getType())).value_or(DType::F32);
            return true;
          })
          .Case([&](BroadcastOp b) {
            d.kind = OpKind::Broadcast;
            d.attrs.dims.assign(b.getDims().begin(), b.getDims().end());
            d.attrs.shape = resultShape(op);
            return true;
          })
          .Case([&](ReshapeOp) {
            d.kind = OpKind::Reshape;
            d.attrs.shape = resultShape(op);
            return true;
          })
          .Case([&](TransposeOp t) {
            d.kind = OpKind::Transpose;
            d.attrs.perm.assign(t.getPerm().begin(), t.getPerm().end());
            return true;
          })
          .Case([&](SliceOp s) {
            d.kind = OpKind::Slice;
            d.attrs.starts.assign(s.getStarts().begin(), s.getStarts().end());
            d.attrs.limits.assign(s.getLimits().begin(), s.getLimits().end());
            d.attrs.steps.assign(s.getSteps().begin(), s.getSteps().end());
            return true;
          })
          .Case<ReduceSumOp, ReduceMaxOp, ReduceMeanOp, ReduceMinOp, ReduceProdOp, ArgMaxOp,
                ArgMinOp>([&](auto r) {
            d.kind = isa<ReduceSumOp>(op)    ? OpKind::ReduceSum
                     : isa<ReduceMaxOp>(op)  ? OpKind::ReduceMax
                     : isa<ReduceMeanOp>(op) ? OpKind::ReduceMean
                     : isa<ReduceMinOp>(op)  ? OpKind::ReduceMin
                     : isa<ReduceProdOp>(op) ? OpKind::ReduceProd
                     : isa<ArgMaxOp>(op)     ? OpKind::ArgMax
                                             : OpKind::ArgMin;
            d.attrs.axes.assign(r.getAxes().begin(), r.getAxes().end());
            d.attrs.keepDims = r.getKeepDims();
            return true;
          })
          .Case([&](SoftmaxOp s) {
            d.kind = OpKind::Softmax;
            d.attrs.axis = static_cast<int64_t>(s.getAxis());
            return true;
          })
          .Case([&](LayerNormOp l) {
            d.kind = OpKind::LayerNorm;
            d.attrs.epsilon = l.getEpsilon().convertToDouble();
            d.attrs.hasWeight = static_cast<bool>(l.getWeight());
            d.attrs.hasBias = static_cast<bool>(l.getBias());
            return true;
          })
          .Case([&](CheckOp c) {
            d.kind = OpKind::Check;
            d.attrs.checkId = static_cast<int64_t>(c.getId());
            return true;
          })
          .Case([&](MatmulOp m) {
            d.kind = OpKind::Matmul;
            d.attrs.transposeA = m.getTransposeA();
            d.attrs.transposeB = m.getTransposeB();
            return true;
          })
          .Default([](Operation*) { return false; });
  if (!known) return std::nullopt;
  return d;
}

Value createOp(OpBuilder& b, Location loc, OpKind kind, const graph::OpAttrs& attrs,
               ValueRange operands, const graph::TensorType& resultType) {
  return createOp(b, loc, kind, attrs, operands, tensorTypeOf(b.getContext(), resultType));
}

Value createOp(OpBuilder& b, Location loc, OpKind kind, const graph::OpAttrs& attrs, ValueRange operands,
               RankedTensorType type) {
  switch (kind) {
    case OpKind::Neg: return NegOp::create(b, loc, type, operands[0]);
    case OpKind::Abs: return AbsOp::create(b, loc, type, operands[0]);
    case OpKind::Exp: return ExpOp::create(b, loc, type, operands[0]);
    case OpKind::Log: return LogOp::create(b, loc, type, operands[0]);
    case OpKind::Tanh: return TanhOp::create(b, loc, type, operands[0]);
    case OpKind::Sigmoid: return SigmoidOp::create(b, loc, type, operands[0]);
    case OpKind::Relu: return ReluOp::create(b, loc, type, operands[0]);
    case OpKind::Sqrt: return SqrtOp::create(b, loc, type, operands[0]);
    case OpKind::Rsqrt: return RsqrtOp::create(b, loc, type, operands[0]);
    case OpKind::Sin: return SinOp::create(b, loc, type, operands[0]);
    case OpKind::Cos: return CosOp::create(b, loc, type, operands[0]);
    case OpKind::Erf: return ErfOp::create(b, loc, type, operands[0]);
    case OpKind::Exp2: return Exp2Op::create(b, loc, type, operands[0]);
    case OpKind::Log2: return Log2Op::create(b, loc, type, operands[0]);
    case OpKind::Floor: return FloorOp::create(b, loc, type, operands[0]);
    case OpKind::Ceil: return CeilOp::create(b, loc, type, operands[0]);
    case OpKind::Round: return RoundOp::create(b, loc, type, operands[0]);
    case OpKind::Sign: return SignOp::create(b, loc, type, operands[0]);
    case OpKind::Silu: return SiluOp::create(b, loc, type, operands[0]);
    case OpKind::Clamp: return ClampOp::create(b, loc, type, operands[0], operands[1], operands[2]);
    case OpKind::Iota: return IotaOp::create(b, loc, type, static_cast<uint64_t>(attrs.axis));
    case OpKind::Concat: return ConcatOp::create(b, loc, type, operands, static_cast<uint64_t>(attrs.axis));
    case OpKind::Gather:
      return GatherOp::create(b, loc, type, operands[0], operands[1], attrs.axis, attrs.checkId);
    case OpKind::DynamicSlice:
      return DynamicSliceOp::create(b, loc, type, operands[0], operands[1], attrs.axis, attrs.checkId);
    case OpKind::DynamicUpdateSlice:
      return DynamicUpdateSliceOp::create(b, loc, type, operands[0], operands[1], operands[2],
                                          b.getI64IntegerAttr(attrs.axis), b.getDenseI64ArrayAttr(attrs.starts),
                                          b.getI64IntegerAttr(attrs.checkId), SizesAttr());
    case OpKind::Gelu:
      return GeluOp::create(b, loc, type, operands[0],
                            attrs.gelu == graph::GeluApprox::Tanh ? GeluApprox::tanh
                                                                  : GeluApprox::erf);
    case OpKind::Add: return AddOp::create(b, loc, type, operands[0], operands[1]);
    case OpKind::Sub: return SubOp::create(b, loc, type, operands[0], operands[1]);
    case OpKind::Mul: return MulOp::create(b, loc, type, operands[0], operands[1]);
    case OpKind::Div: return DivOp::create(b, loc, type, operands[0], operands[1]);
    case OpKind::Pow: return PowOp::create(b, loc, type, operands[0], operands[1]);
    case OpKind::Maximum: return MaximumOp::create(b, loc, type, operands[0], operands[1]);
    case OpKind::Minimum: return MinimumOp::create(b, loc, type, operands[0], operands[1]);
    case OpKind::Compare:
      return CmpOp::create(b, loc, type, fromGraph(attrs.predicate), operands[0], operands[1]);
    case OpKind::Select:
      return SelectOp::create(b, loc, type, operands[0], operands[1], operands[2]);
    case OpKind::Cast: return CastOp::create(b, loc, type, operands[0]);
    case OpKind::Broadcast: return BroadcastOp::create(b, loc, type, operands[0], attrs.dims);
    case OpKind::Reshape: return ReshapeOp::create(b, loc, type, operands[0]);
    case OpKind::Transpose: return TransposeOp::create(b, loc, type, operands[0], attrs.perm);
    case OpKind::Slice:
      return SliceOp::create(b, loc, type, operands[0], b.getDenseI64ArrayAttr(attrs.starts),
                             b.getDenseI64ArrayAttr(attrs.limits), b.getDenseI64ArrayAttr(attrs.steps), SizesAttr(),
                             SizesAttr(), SizesAttr());
    case OpKind::ReduceSum:
      return ReduceSumOp::create(b, loc, type, operands[0], attrs.axes, attrs.keepDims);
    case OpKind::ReduceMax:
      return ReduceMaxOp::create(b, loc, type, operands[0], attrs.axes, attrs.keepDims);
    case OpKind::ReduceMean:
      return ReduceMeanOp::create(b, loc, type, operands[0], attrs.axes, attrs.keepDims);
    case OpKind::ReduceMin:
      return ReduceMinOp::create(b, loc, type, operands[0], attrs.axes, attrs.keepDims);
    case OpKind::ReduceProd:
      return ReduceProdOp::create(b, loc, type, operands[0], attrs.axes, attrs.keepDims);
    case OpKind::ArgMax:
      return ArgMaxOp::create(b, loc, type, operands[0], attrs.axes, attrs.keepDims);
    case OpKind::ArgMin:
      return ArgMinOp::create(b, loc, type, operands[0], attrs.axes, attrs.keepDims);
    case OpKind::Softmax:
      return SoftmaxOp::create(b, loc, type, operands[0], static_cast<uint64_t>(attrs.axis));
    case OpKind::LayerNorm: {
      Value weight = attrs.hasWeight ? operands[1] : Value();
      Value bias = attrs.hasBias ? operands[attrs.hasWeight ? 2 : 1] : Value();
      return LayerNormOp::create(b, loc, type, operands[0], weight, bias,
                                 b.getF64FloatAttr(attrs.epsilon));
    }
    case OpKind::Matmul:
      return MatmulOp::create(b, loc, type, operands[0], operands[1], attrs.transposeA,
                              attrs.transposeB);
    case OpKind::Check:
      CheckOp::create(b, loc, operands[0], static_cast<uint64_t>(attrs.checkId));
      return Value();
    case OpKind::Input:
    case OpKind::Constant:
      break;
  }
  llvm_unreachable("createOp: inputs and constants are built by the importer");
}

}  // namespace tg::ir
