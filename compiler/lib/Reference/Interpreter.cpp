//===- Interpreter.cpp - Evaluation of tg IR with the reference kernels ---===//
#include "tg/Reference/Interpreter.h"

#include "tg/Dialect/HostElements.h"
#include "tg/Dialect/Locations.h"
#include "tg/Dialect/OpDescription.h"
#include "tg/Dialect/TgOps.h"
#include "tg/Reference/RefKernels.h"
#include "tg/Support/CheckSites.h"
#include "tg/Support/Error.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace tg::ref {

namespace {

std::string opText(Operation* op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "'" << op->getName() << "'";
  return s;
}

bool isHalf(DType d) { return d == DType::BF16 || d == DType::F16; }

HostTensor castTo(const HostTensor& t, DType dtype) {
  if (t.dtype() == dtype) return t;
  graph::OpAttrs attrs;
  attrs.dtype = dtype;
  return evaluate(graph::OpKind::Cast, attrs, std::span<const HostTensor>(&t, 1));
}

/// A value as an f32-inside-fusions kernel holds it: 16-bit floats widened (exactly) to f32.
HostTensor widened(const HostTensor& t) { return isHalf(t.dtype()) ? castTo(t, DType::F32) : t; }

std::vector<HostTensor> evaluateBlock(Block& block, llvm::DenseMap<Value, HostTensor>& values,
                                      const InterpretOptions& options, bool inF32);

/// An attention kernel's softmax over the last axis: a row whose scores are all -inf (every
/// key masked) gives 0, not NaN (templates/attention*.cuh).
HostTensor zeroFullyMaskedRows(const HostTensor& softmax, const HostTensor& scores) {
  const int64_t len = scores.shape().empty() ? 1 : scores.shape().back();
  if (len == 0) return softmax;
  std::vector<float> in = scores.toFloats(), out = softmax.toFloats();
  bool changed = false;
  for (size_t base = 0; base + static_cast<size_t>(len) <= in.size(); base += static_cast<size_t>(len)) {
    bool masked = true;
    for (int64_t k = 0; k < len && masked; ++k) masked = in[base + static_cast<size_t>(k)] == -INFINITY;
    if (!masked) continue;
    std::fill(out.begin() + static_cast<std::ptrdiff_t>(base), out.begin() + static_cast<std::ptrdiff_t>(base + len), 0.0f);
    changed = true;
  }
  return changed ? HostTensor::fromFloats(softmax.dtype(), softmax.shape(), out) : softmax;
}

/// An elementwise, row or attention fusion evaluated as its kernel: f32 inside (row
/// statistics and an attention's scores too), rounded at the yield.
std::vector<HostTensor> evaluateFusionInF32(ir::FusionOp fusion,
                                            llvm::DenseMap<Value, HostTensor>& inner,
                                            const InterpretOptions& options) {
  Block& body = fusion.getBody().front();
  for (BlockArgument arg : body.getArguments()) inner[arg] = widened(inner[arg]);
  std::vector<HostTensor> results = evaluateBlock(body, inner, options, /*inF32=*/true);
  for (auto [r, type] : llvm::zip(results, fusion.getResultTypes()))
    if (std::optional<graph::TensorType> t = ir::typeOf(type)) r = castTo(r, t->dtype);
  return results;
}

/// Evaluates the ops of `block` in order; returns the values its terminator passes on. With
/// `inF32` (inside an elementwise fusion, f32InsideFusions), 16-bit floats are kept in f32.
std::vector<HostTensor> evaluateBlock(Block& block, llvm::DenseMap<Value, HostTensor>& values,
                                      const InterpretOptions& options, bool inF32) {
  auto lookup = [&](Value v) -> const HostTensor& {
    auto it = values.find(v);
    if (it == values.end()) throw Error("interpreter: use of a value that was never computed");
    return it->second;
  };
  for (Operation& op : block) {
    if (isa<func::ReturnOp, ir::YieldOp>(op)) {
      std::vector<HostTensor> results;
      for (Value v : op.getOperands()) results.push_back(lookup(v));
      return results;
    }
    if (auto fusion = dyn_cast<ir::FusionOp>(op)) {
      Block& body = fusion.getBody().front();
      llvm::DenseMap<Value, HostTensor> inner;
      for (auto [arg, input] : llvm::zip(body.getArguments(), fusion.getInputs()))
        inner[arg] = lookup(input);
      std::vector<HostTensor> results =
          options.f32InsideFusions && (fusion.getKind() == ir::FusionKind::elementwise ||
                                       fusion.getKind() == ir::FusionKind::row ||
                                       fusion.getKind() == ir::FusionKind::attention)
              ? evaluateFusionInF32(fusion, inner, options)
              : evaluateBlock(body, inner, options, /*inF32=*/false);
      for (auto [res, value] : llvm::zip(fusion.getResults(), results)) values[res] = value;
      continue;
    }
    if (auto check = dyn_cast<ir::CheckOp>(op)) {
      // A failure is recorded; the host raises it at its next sync point.
      std::vector<int32_t> cond = lookup(check.getCondition()).toInts();
      if (std::find(cond.begin(), cond.end(), 0) != cond.end())
        CheckSites::instance().fail(static_cast<int64_t>(check.getId()));
      continue;
    }
    if (auto constant = dyn_cast<ir::ConstantOp>(op)) {
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (!dense)
        throw Error("interpreter: only dense constants are supported",
                    ir::sourceLocOf(op.getLoc()));
      values[constant.getResult()] = inF32 ? widened(ir::hostFromElements(dense)) : ir::hostFromElements(dense);
      continue;
    }
    std::optional<ir::OpDescription> desc = ir::describeOp(&op);
    if (!desc)
      throw Error("interpreter: cannot evaluate " + opText(&op),
                  ir::sourceLocOf(op.getLoc()));
    std::vector<HostTensor> operands;
    for (Value v : op.getOperands()) operands.push_back(lookup(v));
    HostTensor result = evaluate(desc->kind, desc->attrs, operands);
    if (isa<ir::SoftmaxOp>(op))
      if (auto fusion = op.getParentOfType<ir::FusionOp>(); fusion && fusion.getKind() == ir::FusionKind::attention)
        result = zeroFullyMaskedRows(result, operands[0]);
    // In f32: ops compute on the widened values; an explicit cast to bf16/f16 rounds, and the
    // rounded value is held in f32 again. So does a 16-bit softmax (an attention kernel's),
    // which rounds its result as the decomposed softmax does.
    if (inF32 && isa<ir::SoftmaxOp>(op))
      if (std::optional<graph::TensorType> t = ir::typeOf(op.getResult(0).getType())) result = castTo(result, t->dtype);
    values[op.getResult(0)] = inF32 ? widened(result) : result;
  }
  throw Error("interpreter: block has no terminator");
}

}  // namespace

std::vector<HostTensor> interpret(func::FuncOp func, std::span<const HostTensor> args,
                                  const InterpretOptions& options) {
  if (func.isExternal()) throw Error("interpreter: function @" + func.getSymName().str() +
                                     " has no body");
  Block& entry = func.getBody().front();
  if (entry.getNumArguments() != args.size())
    throw Error("interpreter: @" + func.getSymName().str() + " takes " +
                std::to_string(entry.getNumArguments()) + " arguments, got " +
                std::to_string(args.size()));
  llvm::DenseMap<Value, HostTensor> values;
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    std::optional<graph::TensorType> expected = ir::typeOf(arg.getType());
    graph::TensorType given{args[i].dtype(), args[i].shape()};
    if (!expected || *expected != given)
      throw Error("interpreter: argument " + std::to_string(i) + " of @" +
                  func.getSymName().str() + " must be " +
                  (expected ? expected->str() : std::string("a tg tensor")) + ", got " +
                  given.str());
    values[arg] = args[i];
  }
  return evaluateBlock(entry, values, options, /*inF32=*/false);
}

}  // namespace tg::ref
