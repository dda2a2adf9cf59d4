//===- Tensor.cpp - Tensor accessors, host reads and printing -------------===//
#include "tg/Frontend/Dispatch.h"
#include "tg/Frontend/TensorImpl.h"
#include "tg/Frontend/SyncPoints.h"
#include "tg/Frontend/Tracer.h"

#include <cstdio>
#include <new>
#include <ostream>

namespace tg {

const char* device_name(Device device) { return device == Device::CUDA ? "cuda" : "cpu"; }

bool cuda_available() { return rt::Gpu::get() != nullptr; }

Device default_device() {
  static const Device device = [] {
    if (cuda_available()) return Device::CUDA;
    std::fprintf(stderr, "tg: no usable GPU (%s); tensors default to the CPU reference.\n",
                 rt::Gpu::unavailableReason().c_str());
    return Device::CPU;
  }();
  return device;
}

const Shape& Tensor::shape() const { return impl().type.shape; }
DType Tensor::dtype() const { return impl().type.dtype; }
Device Tensor::device() const { return impl().device; }
int64_t Tensor::numel() const { return shape_numel(shape()); }

int64_t Tensor::size(int64_t d) const {
  std::optional<int64_t> axis = graph::normalizeAxis(d, rank());
  if (!axis)
    throw Error("size: dim " + std::to_string(d) + " is out of range for rank " +
                std::to_string(rank()));
  return shape()[*axis];
}

namespace detail {

Tensor wrapHost(ref::HostTensor host) {
  auto impl = std::make_shared<TensorImpl>();
  impl->type = {host.dtype(), host.shape()};
  impl->device = Device::CPU;
  impl->host = std::move(host);
  return Tensor(std::move(impl));
}

const ref::HostTensor& hostOf(const Tensor& t) { return t.impl().host; }

void checkNotDonated(const Tensor& t, std::string_view what, const SourceLoc& loc) {
  if (t.defined() && !t.impl().donatedTo.empty())
    throw Error(std::string(what) + ": the tensor was donated to " + t.impl().donatedTo +
                    ", which may have reused its memory; use that call's result instead",
                loc);
}

Tensor wrapDevice(std::shared_ptr<rt::DeviceBuffer> buffer, graph::TensorType type) {
  auto impl = std::make_shared<TensorImpl>();
  impl->type = std::move(type);
  impl->device = Device::CUDA;
  impl->buffer = std::move(buffer);
  return Tensor(std::move(impl));
}

rt::Gpu& requireGpu(const char* what, const Loc& loc) {
  rt::Gpu* gpu = rt::Gpu::get();
  if (!gpu)
    throw Error(std::string(what) + ": no CUDA device is available (" +
                    rt::Gpu::unavailableReason() + ")",
                SourceLoc::from(loc));
  return *gpu;
}


/// The data of `t` on the host, for a read by the user. Inside tg::jit a read of a traced
/// tensor is a graph break; a read of a CUDA tensor waits for the device (a sync point). Both
/// are recorded with `loc`, and checks that failed since the last sync point are raised.
static ref::HostTensor readToHost(const Tensor& t, const char* what, const char* hint,
                                  const SourceLoc& loc, bool approximateLocation = false) {
  if (!t.defined())
    throw Error(std::string(what) + ": the tensor is undefined (default-constructed)", loc);
  checkNotDonated(t, what, loc);
  const bool breaks = t.impl().symbolic();
  if (breaks) graphBreak(t, what, hint, loc, approximateLocation);  // now concrete
  if (t.device() == Device::CUDA) {
    if (!breaks)  // (a break is recorded in its function's report, as a sync point too)
      recordSync(what, "copies a CUDA tensor to the host: waits for every queued kernel", hint,
                 loc);
    rt::Gpu* gpu = rt::Gpu::get();
    if (!gpu) throw Error(std::string(what) + ": no CUDA device is available", loc);
    ref::HostTensor host;
    try {
      host = ref::HostTensor(t.dtype(), t.shape());
    } catch (const OutOfMemoryError&) {  // HostTensor's, without `what` and the line
      throw OutOfMemoryError(std::string(what) + ": out of host memory for a copy of " +
                                 t.impl().type.str(),
                             loc);
    }
    gpu->copyToHost(host.mutableData(), t.impl().buffer->ptr(), host.nbytes());
    raiseFailedChecks();
    return host;
  }
  raiseFailedChecks();
  return hostOf(t);
}

constexpr const char* kToVectorHint =
    "return the tensor from the jit function and read it after the call";
constexpr const char* kItemHint =
    "keep the decision on the device (tg::where), check conditions with tg::check, or read "
    "the value after the loop or every N steps";
constexpr const char* kBoolHint =
    "use tg::where for a data-dependent select, or tg::check for a condition that must hold";

}  // namespace detail

template <>
std::vector<float> Tensor::to_vector<float>(Loc loc) const {
  return detail::readToHost(*this, "to_vector()", detail::kToVectorHint, SourceLoc::from(loc))
      .toFloats();
}

template <>
std::vector<int32_t> Tensor::to_vector<int32_t>(Loc loc) const {
  return detail::readToHost(*this, "to_vector()", detail::kToVectorHint, SourceLoc::from(loc))
      .toInts();
}

template <>
std::vector<bool> Tensor::to_vector<bool>(Loc loc) const {
  std::vector<int32_t> ints =
      detail::readToHost(*this, "to_vector()", detail::kToVectorHint, SourceLoc::from(loc))
          .toInts();
  return std::vector<bool>(ints.begin(), ints.end());
}

/// The only element of `t` as a host tensor: a graph break or a sync point (readToHost).
static ref::HostTensor onlyElement(const Tensor& t, const char* what, const char* hint,
                                   const SourceLoc& loc, bool approximateLocation = false) {
  if (t.defined() && t.numel() != 1)
    throw Error(std::string(what) + ": needs a tensor with exactly one element, got " +
                    graph::TensorType{t.dtype(), t.shape()}.str(),
                loc);
  return detail::readToHost(t, what, hint, loc, approximateLocation);
}

template <>
float Tensor::item<float>(Loc loc) const {
  return onlyElement(*this, "item()", detail::kItemHint, SourceLoc::from(loc)).floatAt(0);
}
template <>
int32_t Tensor::item<int32_t>(Loc loc) const {
  return onlyElement(*this, "item()", detail::kItemHint, SourceLoc::from(loc)).intAt(0);
}
template <>
bool Tensor::item<bool>(Loc loc) const {
  return onlyElement(*this, "item()", detail::kItemHint, SourceLoc::from(loc)).intAt(0) != 0;
}

Tensor::operator bool() const {
  // C++ gives operator bool no std::source_location: inside a trace, report the line of the op
  // that computed the value (the nearest recorded place) and say so.
  SourceLoc loc;
  bool approximate = false;
  if (defined() && impl().symbolic() && impl().tracer) {
    loc = impl().tracer->trace().nodes.at(impl().value).loc;
    approximate = true;
  }
  return onlyElement(*this, "operator bool", detail::kBoolHint, loc, approximate).floatAt(0) !=
         0.0f;
}

Tensor Tensor::to(Device device, Loc loc) const {
  if (!defined()) detail::fail("to", "the tensor is undefined (default-constructed)", loc);
  detail::checkNotDonated(*this, "to", loc);
  if (device == this->device()) return *this;
  if (impl().symbolic())
    detail::fail("to", "cannot move a traced tensor between devices inside tg::jit", loc);
  if (device == Device::CPU)
    return detail::wrapHost(detail::readToHost(
        *this, ".to(cpu)", "keep tensors on the device until the host needs them",
        SourceLoc::from(loc)));
  return detail::fromHost(detail::hostOf(*this), Device::CUDA, loc);
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "tensor(undefined)";
  os << "tensor(" << graph::TensorType{t.dtype(), t.shape()}.str() << ", "
     << device_name(t.device());
  if (t.impl().symbolic()) return os << ", traced)";
  os << ") [";
  std::vector<float> values = t.to_vector<float>();
  const size_t shown = std::min<size_t>(values.size(), 8);
  for (size_t i = 0; i < shown; ++i) os << (i ? ", " : "") << values[i];
  if (values.size() > shown) os << ", ... (" << values.size() << " elements)";
  return os << "]";
}

}  // namespace tg
