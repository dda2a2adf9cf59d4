//===- Dispatch.cpp - Checking, recording and eager evaluation of ops -----===//
#include "tg/Frontend/Dispatch.h"

#include "tg/Frontend/Tracer.h"
#include "tg/Graph/ShapeRules.h"
#include "tg/Reference/RefKernels.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace tg::detail {

using graph::OpKind;

void fail(std::string_view op, const std::string& message, const Loc& loc) {
  throw Error(std::string(op) + ": " + message, SourceLoc::from(loc));
}

static void checkUsable(const Tensor& t, std::string_view op, const Loc& loc, Tracer* tracer) {
  if (!t.defined()) fail(op, "operand is an undefined tensor (default-constructed)", loc);
  const TensorImpl& impl = t.impl();
  if (impl.symbolic() && (impl.tracer.get() != tracer || !impl.tracer->active()))
    fail(op,
         "operand is a traced value of a tg::jit function used outside its trace (did a "
         "symbolic tensor escape the lambda?)",
         loc);
}

Tensor apply(OpKind kind, const graph::OpAttrs& attrs, const std::vector<Tensor>& operands,
             const Loc& loc) {
  Tracer* tracer = Tracer::current();
  std::vector<graph::TensorType> types;
  types.reserve(operands.size());
  for (const Tensor& t : operands) {
    checkUsable(t, graph::opName(kind), loc, tracer);
    types.push_back(t.impl().type);
  }
  graph::TensorType result;
  std::string error = graph::inferResultType(kind, attrs, types, result);
  if (!error.empty()) fail(graph::opName(kind), error, loc);

  if (tracer) return tracer->record(kind, attrs, operands, result, SourceLoc::from(loc));

  // Eager: every operand on one device.
  Device device = operands.empty() ? default_device() : operands[0].device();
  for (const Tensor& t : operands)
    if (t.device() != device)
      fail(graph::opName(kind),
           std::string("operands are on different devices (") + device_name(device) + " and " +
               device_name(t.device()) + "); move one with .to(device)",
           loc);
  if (device != Device::CPU)
    fail(graph::opName(kind), "eager execution on CUDA is not available in this build", loc);
  std::vector<ref::HostTensor> hosts;
  hosts.reserve(operands.size());
  for (const Tensor& t : operands) hosts.push_back(hostOf(t));
  return wrapHost(ref::evaluate(kind, attrs, hosts));
}

Tensor full(const graph::TensorType& type, double value, Device device, const Loc& loc) {
  if (Tracer* tracer = Tracer::current())
    return tracer->recordConstant(ref::HostTensor::filled(type.dtype, {}, value), type,
                                  /*splat=*/true, SourceLoc::from(loc));
  return fromHost(ref::HostTensor::filled(type.dtype, type.shape, value), device, loc);
}

Tensor fromHost(ref::HostTensor host, Device device, const Loc& loc) {
  if (Tracer* tracer = Tracer::current()) {
    graph::TensorType type{host.dtype(), host.shape()};
    return tracer->recordConstant(std::move(host), type, /*splat=*/false, SourceLoc::from(loc));
  }
  if (device != Device::CPU)
    throw Error("cannot create a CUDA tensor: no CUDA device is available", SourceLoc::from(loc));
  return wrapHost(std::move(host));
}

Tensor broadcastTo(const Tensor& t, const Shape& shape, std::string_view op, const Loc& loc) {
  if (t.shape() == shape) return t;
  if (t.shape().size() > shape.size())
    fail(op,
         "cannot broadcast " + format_shape(t.shape()) + " to the lower-rank " +
             format_shape(shape),
         loc);
  graph::OpAttrs attrs;
  attrs.shape = shape;
  attrs.dims = graph::trailingDims(t.rank(), static_cast<int64_t>(shape.size()));
  return apply(OpKind::Broadcast, attrs, {t}, loc);
}

Tensor scalarLike(const Tensor& like, double value, std::string_view op, const Loc& loc) {
  if (!like.defined()) fail(op, "operand is an undefined tensor (default-constructed)", loc);
  DType dtype = like.dtype();
  if (dtype == DType::I32 && (value != std::trunc(value) || std::abs(value) > 2147483647.0)) {
    std::ostringstream os;
    os << "scalar " << value << " cannot be represented exactly as i32 (cast the tensor first)";
    fail(op, os.str(), loc);
  }
  if (dtype == DType::Bool && value != 0 && value != 1) {
    std::ostringstream os;
    os << "scalar " << value << " is not a bool (0 or 1)";
    fail(op, os.str(), loc);
  }
  return full(like.impl().type, value, like.device(), loc);
}

std::vector<int64_t> normalizeAxes(std::vector<int64_t> axes, int64_t rank, std::string_view op,
                                   const Loc& loc) {
  for (int64_t& a : axes) {
    std::optional<int64_t> n = graph::normalizeAxis(a, rank);
    if (!n)
      fail(op, "axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank),
           loc);
    a = *n;
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    fail(op, "an axis is repeated", loc);
  return axes;
}

}  // namespace tg::detail
