//===- RefKernels.cpp - Dispatch of one op to its reference family --------===//
#include "tg/Reference/RefKernels.h"

#include <cassert>

namespace tg::ref {

using graph::OpKind;

HostTensor evaluate(OpKind kind, const graph::OpAttrs& attrs,
                    std::span<const HostTensor> operands) {
  if (graph::isDeviceIndexed(kind)) return evaluateIndexed(kind, attrs, operands);
  if (graph::isElementwise(kind)) return evaluateElementwise(kind, attrs, operands);
  switch (kind) {
    case OpKind::Broadcast:
    case OpKind::Reshape:
    case OpKind::Transpose:
    case OpKind::Slice:
      return evaluateLayout(kind, attrs, operands[0]);
    case OpKind::ReduceSum:
    case OpKind::ReduceMax:
    case OpKind::ReduceMean:
    case OpKind::ReduceMin:
    case OpKind::ReduceProd:
      return evaluateReduction(kind, attrs, operands[0]);
    case OpKind::ArgMax:
    case OpKind::ArgMin:
      return evaluateArgReduction(kind, attrs, operands[0]);
    case OpKind::Softmax:
      return evaluateSoftmax(attrs, operands[0]);
    case OpKind::LayerNorm:
      return evaluateLayerNorm(attrs, operands);
    case OpKind::Matmul:
      return evaluateMatmul(attrs, operands[0], operands[1]);
    default:
      assert(false && "op kind has no reference kernel");
      return {};
  }
}

}  // namespace tg::ref
