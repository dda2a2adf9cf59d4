//===- Dispatch.cpp - Checking, recording and eager evaluation of ops -----===//
#include "tg/Frontend/Dispatch.h"

#include "tg/Frontend/Program.h"
#include "tg/Frontend/Tracer.h"
#include "tg/Graph/ShapeRules.h"
#include "tg/Reference/RefKernels.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>
#include <cmath>
#include <cstring>
#include <new>
#include <sstream>

namespace tg::detail {

using graph::OpKind;

void fail(std::string_view op, const std::string& message, const Loc& loc) {
  throw Error(std::string(op) + ": " + message, SourceLoc::from(loc));
}

int64_t axisOf(const Tensor& x, int64_t axis, std::string_view op, const Loc& loc) {
  std::optional<int64_t> a = graph::normalizeAxis(axis, x.rank());
  if (!a) fail(op, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(x.rank()), loc);
  return *a;
}

static void checkUsable(const Tensor& t, std::string_view op, const Loc& loc, Tracer* tracer) {
  if (!t.defined()) fail(op, "operand is an undefined tensor (default-constructed)", loc);
  checkNotDonated(t, op, loc);
  const TensorImpl& impl = t.impl();
  if (impl.symbolic() && (impl.tracer.get() != tracer || !impl.tracer->active()))
    fail(op,
         "operand is a traced value of a tg::jit function used outside its trace (did a "
         "symbolic tensor escape the lambda?)",
         loc);
}

/// Eager execution of one op on the GPU: the op is compiled as a one-node graph, once per
/// (op, attributes, operand types), and its program replayed afterwards. Returns the op's
/// result (an undefined tensor for tg.check, which has none).
Tensor applyOnGpu(OpKind kind, const graph::OpAttrs& attrs, const std::vector<Tensor>& operands,
                  const graph::TensorType& result, const Loc& loc) {
  requireGpu(std::string(graph::opName(kind)).c_str(), loc);
  Trace trace;
  trace.numArgs = operands.size();
  for (size_t i = 0; i < operands.size(); ++i) {
    TraceNode input;
    input.kind = OpKind::Input;
    input.type = operands[i].impl().type;
    input.inputIndex = static_cast<int>(i);
    trace.nodes.push_back(std::move(input));
  }
  TraceNode node;
  node.kind = kind;
  node.attrs = attrs;
  node.type = result;
  for (size_t i = 0; i < operands.size(); ++i) node.operands.push_back(static_cast<int>(i));
  trace.nodes.push_back(std::move(node));
  if (kind != OpKind::Check) trace.outputs = {static_cast<int>(operands.size())};

  static std::mutex mutex;
  static std::unordered_map<std::string, std::unique_ptr<Program>> programs;
  std::string key = structuralKey(trace);
  Program* program = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto& slot = programs[key];
    if (!slot) {
      try {
        slot = compileTrace(trace, JitOptions{}, Device::CUDA, "eager_" + std::string(graph::opName(kind)));
      } catch (const Error& e) {
        programs.erase(key);
        throw Error(e.message(), SourceLoc::from(loc));
      }
    }
    program = slot.get();
  }
  std::vector<Tensor> results;
  try {
    results = program->run(operands);
  } catch (const OutOfMemoryError& e) {
    throw OutOfMemoryError(std::string(graph::opName(kind)) + ": " + e.message(),
                           SourceLoc::from(loc));
  }
  return results.empty() ? Tensor() : results[0];
}

Tensor apply(OpKind kind, const graph::OpAttrs& attrs, const std::vector<Tensor>& operands,
             const Loc& loc, std::optional<Device> leafDevice) {
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
  Device device = operands.empty() ? leafDevice.value_or(default_device()) : operands[0].device();
  for (const Tensor& t : operands)
    if (t.device() != device)
      fail(graph::opName(kind),
           std::string("operands are on different devices (") + device_name(device) + " and " +
               device_name(t.device()) + "); move one with .to(device)",
           loc);
  if (device == Device::CUDA) return applyOnGpu(kind, attrs, operands, result, loc);
  std::vector<ref::HostTensor> hosts;
  hosts.reserve(operands.size());
  for (const Tensor& t : operands) hosts.push_back(hostOf(t));
  checkedNumel(result, graph::opName(kind), loc);
  try {
    return wrapHost(ref::evaluate(kind, attrs, hosts));
  } catch (const OutOfMemoryError&) {  // a HostTensor the reference kernel allocated
    throw OutOfMemoryError(std::string(graph::opName(kind)) + ": out of host memory for its " +
                               result.str() + " result",
                           SourceLoc::from(loc));
  }
}

size_t checkedNumel(const graph::TensorType& type, std::string_view op, const Loc& loc) {
  for (int64_t d : type.shape)
    if (d < 0) fail(op, "shape " + format_shape(type.shape) + " has a negative extent", loc);
  // tg's one size limit (tg::kMaxTensorBytes, 2^48 bytes): every offset and size a kernel or
  // the allocator computes then fits, as the dialect and the shape rules assume.
  if (std::string err = tensor_size_error(type.dtype, type.shape); !err.empty()) fail(op, err, loc);
  return static_cast<size_t>(shape_numel(type.shape));
}

ref::HostTensor allocateHost(const graph::TensorType& type, std::string_view op, const Loc& loc) {
  const size_t bytes = checkedNumel(type, op, loc) * dtype_size(type.dtype);
  try {
    return ref::HostTensor(type.dtype, type.shape);
  } catch (const OutOfMemoryError&) {  // HostTensor's, without the op and the line
    throw OutOfMemoryError(std::string(op) + ": out of host memory: asked for " +
                               std::to_string(bytes) + " bytes for " + type.str(),
                           SourceLoc::from(loc));
  }
}

std::shared_ptr<rt::DeviceBuffer> allocateDevice(rt::Gpu& gpu, const graph::TensorType& type,
                                                 std::string_view op, const Loc& loc) {
  const size_t bytes = checkedNumel(type, op, loc) * dtype_size(type.dtype);
  try {
    return gpu.allocate(bytes);
  } catch (const OutOfMemoryError& e) {
    throw OutOfMemoryError(std::string(op) + ": " + e.message() + " for " + type.str(),
                           SourceLoc::from(loc));
  }
}

Tensor full(const graph::TensorType& type, double value, Device device, const Loc& loc,
            std::string_view op) {
  if (Tracer* tracer = Tracer::current())
    return tracer->recordConstant(ref::HostTensor::filled(type.dtype, {}, value), type,
                                  /*splat=*/true, SourceLoc::from(loc));
  const ref::HostTensor one = ref::HostTensor::filled(type.dtype, {}, value);
  if (device == Device::CPU) {
    // One element converted, then copied: HostTensor::filled without the second allocation.
    ref::HostTensor host = allocateHost(type, op, loc);
    const size_t size = dtype_size(type.dtype);
    for (size_t i = 0, n = host.nbytes(); i < n; i += size)
      std::memcpy(host.mutableData() + i, one.data(), size);
    return wrapHost(std::move(host));
  }
  // On the GPU: the driver's memset of the element's bit pattern (no host buffer, no copy).
  rt::Gpu& gpu = requireGpu(std::string(op).c_str(), loc);
  std::shared_ptr<rt::DeviceBuffer> buffer = allocateDevice(gpu, type, op, loc);
  const size_t size = dtype_size(type.dtype);
  uint32_t pattern = 0;
  std::memcpy(&pattern, one.data(), size);
  gpu.fill(buffer->ptr(), pattern, size, checkedNumel(type, op, loc));
  return wrapDevice(std::move(buffer), type);
}

Tensor fromHost(ref::HostTensor host, Device device, const Loc& loc) {
  if (Tracer* tracer = Tracer::current()) {
    graph::TensorType type{host.dtype(), host.shape()};
    return tracer->recordConstant(std::move(host), type, /*splat=*/false, SourceLoc::from(loc));
  }
  if (device == Device::CPU) return wrapHost(std::move(host));
  rt::Gpu& gpu = requireGpu("cannot create a CUDA tensor", loc);
  graph::TensorType type{host.dtype(), host.shape()};
  std::shared_ptr<rt::DeviceBuffer> buffer = allocateDevice(gpu, type, "to(cuda)", loc);
  gpu.copyToDevice(buffer->ptr(), host.data(), host.nbytes());
  return wrapDevice(std::move(buffer), std::move(type));
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
