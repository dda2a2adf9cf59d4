//===- TensorImpl.h - What a tg::Tensor holds (internal) ------------------===//
//
// A tensor is either concrete (data on the CPU as a HostTensor, or on a GPU) or symbolic: a
// value of the trace being recorded by tg::jit. MLIR-free.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Graph/ShapeRules.h"
#include "tg/Reference/HostTensor.h"
#include "tg/Runtime/Gpu.h"
#include "tg/tg.h"

#include <memory>
#include <string>
#include <string_view>

namespace tg::detail {

class Tracer;

struct TensorImpl {
  graph::TensorType type;
  Device device = Device::CPU;
  /// The data of a concrete CPU tensor.
  ref::HostTensor host;
  /// The data of a concrete CUDA tensor (row-major, dtype_size bytes per element).
  std::shared_ptr<rt::DeviceBuffer> buffer;
  /// Symbolic tensors: the tracer that recorded the value, and the value's index in its trace.
  std::shared_ptr<Tracer> tracer;
  int value = -1;

  /// Set when the tensor was donated to a jit call (JitOptions::donate): what to tell a user
  /// who reads it afterwards. Its data is gone (the call may have reused the memory).
  std::string donatedTo;

  bool symbolic() const { return tracer != nullptr; }
};

/// Throws tg::Error "what: the tensor was donated to ..." at `loc` if `t` was donated.
void checkNotDonated(const Tensor& t, std::string_view what, const SourceLoc& loc);
/// The same at a call's Loc, which becomes a SourceLoc (strings) only for a donated tensor:
/// every op checks its operands, so the check must cost nothing otherwise.
inline void checkNotDonated(const Tensor& t, std::string_view what, const Loc& loc) {
  if (t.defined() && !t.impl().donatedTo.empty()) checkNotDonated(t, what, SourceLoc::from(loc));
}

/// Wraps host data as a concrete CPU tensor.
Tensor wrapHost(ref::HostTensor host);
/// The host data of a concrete CPU tensor.
const ref::HostTensor& hostOf(const Tensor& t);
/// Wraps a device buffer as a concrete CUDA tensor of `type`.
Tensor wrapDevice(std::shared_ptr<rt::DeviceBuffer> buffer, graph::TensorType type);
/// The process's GPU; throws tg::Error (naming why) when there is none.
rt::Gpu& requireGpu(const char* what, const Loc& loc);

}  // namespace tg::detail
