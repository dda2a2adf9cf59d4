//===- ScalarMath.cpp - One element of each tg op, as CUDA C++ ------------===//
#include "ScalarMath.h"

#include "tg/Dialect/HostElements.h"

#include "llvm/ADT/APFloat.h"

#include <cassert>
#include <cmath>
#include <cstdio>

namespace tg::codegen {

using graph::OpKind;

const char* storageType(DType dtype) {
  switch (dtype) {
    case DType::F32: return "float";
    case DType::F16: return "tg_f16";
    case DType::BF16: return "tg_bf16";
    case DType::I32: return "int";
    case DType::Bool: return "tg_bool";
  }
  return "?";
}

const char* computeType(DType dtype) {
  if (is_floating(dtype)) return "float";
  return dtype == DType::I32 ? "int" : "bool";
}

std::string loadConvert(DType dtype, const std::string& s) {
  switch (dtype) {
    case DType::BF16: return "tg_from_bf16(" + s + ")";
    case DType::F16: return "tg_from_f16(" + s + ")";
    case DType::Bool: return "(" + s + " != 0)";
    default: return s;
  }
}

std::string storeConvert(DType dtype, const std::string& v) {
  switch (dtype) {
    case DType::BF16: return "tg_to_bf16(" + v + ")";
    case DType::F16: return "tg_to_f16(" + v + ")";
    case DType::Bool: return "(tg_bool)(" + v + " ? 1 : 0)";
    default: return v;
  }
}

static std::string floatLiteral(float f) {
  if (std::isnan(f)) return "__int_as_float(0x7fffffff)";
  if (std::isinf(f)) return f > 0 ? "__int_as_float(0x7f800000)" : "__int_as_float(0xff800000)";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%af", static_cast<double>(f));  // exact (hex float)
  return buf;
}

static std::string intLiteral(int64_t v) {
  if (v == INT32_MIN) return "(-2147483647 - 1)";
  return std::to_string(v);
}

std::string splatLiteral(mlir::DenseElementsAttr splat, DType dtype) {
  const std::optional<ref::HostTensor> v = ir::splatElement(splat);
  assert(v && v->dtype() == dtype && "a splat of the value's own dtype");
  if (is_floating(dtype)) return floatLiteral(v->floatAt(0));
  if (dtype == DType::Bool) return v->intAt(0) == 0 ? "false" : "true";
  return intLiteral(v->intAt(0));
}

static std::string roundTo(DType dtype, const std::string& e) {
  if (dtype == DType::BF16) return "tg_round_bf16(" + e + ")";
  if (dtype == DType::F16) return "tg_round_f16(" + e + ")";
  return e;
}

static std::string castExpr(const std::string& a, DType from, DType to) {
  if (from == to) return a;
  if (to == DType::Bool) return is_floating(from) ? "(" + a + " != 0.0f)" : "(" + a + " != 0)";
  if (from == DType::Bool) return is_floating(to) ? "(" + a + " ? 1.0f : 0.0f)" : "(" + a + " ? 1 : 0)";
  if (to == DType::I32) return "tg_f2i(" + a + ")";  // from a float dtype
  if (from == DType::I32) {
    // One rounding to the target: round-to-odd into f32 first keeps a later bf16/f16 rounding
    // exact (f32 has more than 2 extra bits).
    if (to == DType::F32) return "((float)" + a + ")";
    return roundTo(to, "tg_i2f_odd(" + a + ")");
  }
  return roundTo(to, a);  // float to float: widening is exact, narrowing rounds once
}

std::string scalarExpr(OpKind kind, const graph::OpAttrs& attrs,
                       const std::vector<std::string>& x, DType in, DType out,
                       Precision precision) {
  // Fast: every approximation. Auto: approximations for bf16 results; for f32/f16 the
  // ex2/rcp-based exp, sigmoid and full-range division (a few ulp), accurate tanh/log/erf/pow.
  const bool fast = precision == Precision::Fast ||
                    (precision == Precision::Auto && out == DType::BF16);
  const bool cheap = fast || precision == Precision::Auto;
  const bool isInt = in == DType::I32;
  auto call = [](const char* f, const std::string& a) { return std::string(f) + "(" + a + ")"; };
  auto call2 = [](const char* f, const std::string& a, const std::string& b) {
    return std::string(f) + "(" + a + ", " + b + ")";
  };
  std::string e;
  switch (kind) {
    case OpKind::Neg: e = isInt ? call("tg_ineg", x[0]) : "(-" + x[0] + ")"; break;
    case OpKind::Abs: e = isInt ? call("tg_iabs", x[0]) : call("fabsf", x[0]); break;
    case OpKind::Relu:
      e = isInt ? "(" + x[0] + " < 0 ? 0 : " + x[0] + ")" : call("tg_relu", x[0]);
      break;
    case OpKind::Exp: e = call(cheap ? "tg_exp_approx" : "expf", x[0]); break;
    case OpKind::Log: e = call(fast ? "__logf" : "logf", x[0]); break;
    case OpKind::Tanh: e = call(fast ? "tg_tanh_approx" : "tanhf", x[0]); break;
    case OpKind::Sigmoid:
      e = cheap ? call("tg_sigmoid_approx", x[0]) : "(1.0f / (1.0f + expf(-" + x[0] + ")))";
      break;
    case OpKind::Gelu:
      if (attrs.gelu == graph::GeluApprox::Tanh && fast)
        e = call("tg_gelu_tanh_approx", x[0]);
      else if (attrs.gelu == graph::GeluApprox::Tanh)
        e = "(0.5f * " + x[0] + " * (1.0f + tanhf(0.7978845608028654f * (" + x[0] +
            " + 0.044715f * " + x[0] + " * " + x[0] + " * " + x[0] + "))))";
      else
        e = "(0.5f * " + x[0] + " * (1.0f + erff(" + x[0] + " * 0.7071067811865476f)))";
      break;
    case OpKind::Sqrt: e = call("sqrtf", x[0]); break;
    case OpKind::Rsqrt: e = fast ? call("tg_rsqrt_approx", x[0]) : "(1.0f / sqrtf(" + x[0] + "))"; break;
    // sin and cos stay accurate under every precision: __sinf's error grows with |x|, and
    // rotary embeddings take them of angles in the hundreds.
    case OpKind::Sin: e = call("sinf", x[0]); break;
    case OpKind::Cos: e = call("cosf", x[0]); break;
    case OpKind::Erf: e = call("erff", x[0]); break;
    case OpKind::Exp2: e = call("exp2f", x[0]); break;  // ex2.approx with range fix-ups: 2 ulp
    case OpKind::Log2: e = call(fast ? "__log2f" : "log2f", x[0]); break;
    case OpKind::Floor: e = call("floorf", x[0]); break;
    case OpKind::Ceil: e = call("ceilf", x[0]); break;
    case OpKind::Round: e = call("rintf", x[0]); break;  // halves to even
    case OpKind::Sign: e = call(isInt ? "tg_isign" : "tg_signf", x[0]); break;
    case OpKind::Silu:
      e = cheap ? call("tg_silu_approx", x[0]) : "(" + x[0] + " / (1.0f + expf(-" + x[0] + ")))";
      break;
    case OpKind::Iota:  // x[0]: the element's index along the axis (the emitter's)
      if (out == DType::I32) return "((int)(" + x[0] + "))";
      return roundTo(out, "((float)(" + x[0] + "))");
    case OpKind::Clamp:
      e = std::string(isInt ? "tg_iclamp(" : "tg_clampf(") + x[0] + ", " + x[1] + ", " + x[2] + ")";
      break;
    case OpKind::Add: e = isInt ? call2("tg_iadd", x[0], x[1]) : "(" + x[0] + " + " + x[1] + ")"; break;
    case OpKind::Sub: e = isInt ? call2("tg_isub", x[0], x[1]) : "(" + x[0] + " - " + x[1] + ")"; break;
    case OpKind::Mul: e = isInt ? call2("tg_imul", x[0], x[1]) : "(" + x[0] + " * " + x[1] + ")"; break;
    case OpKind::Div:
      e = isInt ? call2("tg_idiv", x[0], x[1])
                : (cheap ? call2("tg_div_full", x[0], x[1]) : "(" + x[0] + " / " + x[1] + ")");
      break;
    case OpKind::Pow: e = call2(fast ? "__powf" : "powf", x[0], x[1]); break;
    case OpKind::Maximum:
      e = isInt ? "(" + x[0] + " > " + x[1] + " ? " + x[0] + " : " + x[1] + ")"
                : call2("tg_maxf", x[0], x[1]);
      break;
    case OpKind::Minimum:
      e = isInt ? "(" + x[0] + " < " + x[1] + " ? " + x[0] + " : " + x[1] + ")"
                : call2("tg_minf", x[0], x[1]);
      break;
    case OpKind::Compare: {
      static const char* ops[] = {"==", "!=", "<", "<=", ">", ">="};
      e = "(" + x[0] + " " + ops[static_cast<int>(attrs.predicate)] + " " + x[1] + ")";
      break;
    }
    case OpKind::Select:
      e = "(" + x[0] + " ? " + x[1] + " : " + x[2] + ")";
      break;
    case OpKind::Cast:
      return castExpr(x[0], in, out);
    default:
      assert(false && "not an elementwise op");
      return "0";
  }
  return e;  // intermediates stay in f32 inside a kernel; stores (and casts) round
}

ReductionCode reductionCode(OpKind kind, DType input) {
  const bool isInt = input == DType::I32;
  ReductionCode c;
  c.acc = isInt ? "int" : "float";
  const char* suffix = isInt ? "I" : "F";
  switch (kind) {
    case OpKind::ReduceSum:
    case OpKind::ReduceMean:
      c.identity = isInt ? "0" : "0.0f";
      c.functor = std::string("TgSum") + suffix;
      c.combineFn = isInt ? "tg_iadd" : "tg_addf";
      c.mean = kind == OpKind::ReduceMean;
      break;
    case OpKind::ReduceMax:
      c.identity = isInt ? "(-2147483647 - 1)" : "-__int_as_float(0x7f800000)";
      c.functor = std::string("TgMax") + suffix;
      c.combineFn = isInt ? "tg_imax" : "tg_maxf";
      break;
    case OpKind::ReduceMin:
      c.identity = isInt ? "2147483647" : "__int_as_float(0x7f800000)";
      c.functor = std::string("TgMin") + suffix;
      c.combineFn = isInt ? "tg_imin" : "tg_minf";
      break;
    case OpKind::ReduceProd:
      c.identity = isInt ? "1" : "1.0f";
      c.functor = std::string("TgProd") + suffix;
      c.combineFn = isInt ? "tg_imul" : "tg_mulf";
      break;
    case OpKind::ArgMax:
    case OpKind::ArgMin:
      // The smallest key decodes to index 2^32 - 1; every reduced axis holds an element.
      c.acc = "unsigned long long";
      c.identity = "0ull";
      c.functor = "TgMaxKey";
      c.combineFn = "tg_umax64";
      c.arg = true;
      c.argMin = kind == OpKind::ArgMin;
      break;
    default:
      assert(false && "not a reduction");
  }
  return c;
}

std::string ReductionCode::element(const std::string& x, const std::string& r) const {
  if (!arg) return x;
  return std::string("tg_arg_key<") + (argMin ? "true" : "false") + ">(" + x + ", " + r + ")";
}

std::string ReductionCode::finish(const std::string& a, int64_t count) const {
  if (arg) return "tg_arg_index(" + a + ")";
  if (mean) return "(" + a + " / " + std::to_string(count) + ".0f)";
  return a;
}

}  // namespace tg::codegen
