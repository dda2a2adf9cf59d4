//===- Dispatch.h - One entry point for every op (internal) ---------------===//
//
// apply() is the single path every public op takes: check shapes and dtypes with the shared
// rules (raising tg::Error at the user's line), then record into the active trace or evaluate
// eagerly on the tensor's device. MLIR-free.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Frontend/TensorImpl.h"
#include "tg/Graph/OpKind.h"

#include <optional>
#include <string_view>
#include <vector>

namespace tg::detail {

/// Throws tg::Error "op: message" at `loc`.
[[noreturn]] void fail(std::string_view op, const std::string& message, const Loc& loc);

/// Checks, then records (while tracing) or evaluates (eagerly) one op. An op without operands
/// (iota) runs eagerly on `leafDevice` (default: default_device()).
Tensor apply(graph::OpKind kind, const graph::OpAttrs& attrs, const std::vector<Tensor>& operands,
             const Loc& loc, std::optional<Device> leafDevice = std::nullopt);

/// One op run eagerly on the GPU (a one-node graph, compiled once per op and types).
Tensor applyOnGpu(graph::OpKind kind, const graph::OpAttrs& attrs,
                  const std::vector<Tensor>& operands, const graph::TensorType& result,
                  const Loc& loc);

/// The element count of `type`, checked: throws tg::Error at `loc` for a negative extent or
/// more than tg's size limit (tensor_size_error: 2^48 bytes).
size_t checkedNumel(const graph::TensorType& type, std::string_view op, const Loc& loc);
/// Memory for a tensor of `type`, or tg::OutOfMemoryError naming `op`, the bytes and `loc`.
ref::HostTensor allocateHost(const graph::TensorType& type, std::string_view op, const Loc& loc);
std::shared_ptr<rt::DeviceBuffer> allocateDevice(rt::Gpu& gpu, const graph::TensorType& type,
                                                 std::string_view op, const Loc& loc);

/// A tensor of `type` with every element `value` on `device` (a splat constant when tracing).
Tensor full(const graph::TensorType& type, double value, Device device, const Loc& loc,
            std::string_view op = "full");

/// A tensor from host data on `device` (a constant when tracing).
Tensor fromHost(ref::HostTensor host, Device device, const Loc& loc);

/// `t` broadcast numpy-style to `shape`; `t` itself when the shapes are equal.
Tensor broadcastTo(const Tensor& t, const Shape& shape, std::string_view op, const Loc& loc);

/// The scalar as a tensor shaped and typed like `like`. Throws when the value does not fit the
/// dtype (1.5 as i32, say).
Tensor scalarLike(const Tensor& like, double value, std::string_view op, const Loc& loc);

/// `axis` of `x` made non-negative; throws tg::Error "op: axis ... is out of range" at `loc`.
int64_t axisOf(const Tensor& x, int64_t axis, std::string_view op, const Loc& loc);

/// Normalises possibly negative axes of a rank-`rank` tensor; sorted, checked for repeats.
std::vector<int64_t> normalizeAxes(std::vector<int64_t> axes, int64_t rank, std::string_view op,
                                   const Loc& loc);

}  // namespace tg::detail
