//===- tg.h - The tg public API -------------------------------------------===//
//
// Everything a user of tg includes: tensors, the ops on them, and tg::jit, which traces a C++
// lambda into a graph, compiles it and replays it. Standard library only: user code builds
// without MLIR or CUDA headers.
//
//   tg::Tensor x = tg::randn({1 << 20}, tg::DType::F32, /*seed=*/1);
//   auto f = tg::jit([](const tg::Tensor& x) { return tg::tanh(x * 1.5f) + 1.0f; });
//   tg::Tensor y = f(x);                 // first call: trace + compile; later calls: replay
//   std::vector<float> host = y.to_vector();
//
// Every op checks shapes and dtypes when it is called (also while tracing) and throws
// tg::Error naming the op, the shapes and the caller's file and line.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Support/DType.h"
#include "tg/Support/Error.h"
#include "tg/Support/Precision.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <limits>
#include <memory>
#include <source_location>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace tg {

/// Where a tensor's data lives.
enum class Device { CPU, CUDA };
const char* device_name(Device device);
/// True when a CUDA driver and at least one GPU are usable.
bool cuda_available();
/// CUDA when available, else CPU. Tensors are created here unless a device is named.
Device default_device();

/// The two GELU formulas: exact (erf, PyTorch's default) and the tanh approximation.
enum class Gelu { Erf, Tanh };

class Tensor;

namespace detail {
struct TensorImpl;
/// A Tensor variable that a jit function reads (a captured weight): it notes when the variable
/// is assigned a new tensor or destroyed, so that replays never use a stale tensor
/// (frontend/include/tg/Frontend/Binding.h).
struct Binding;
void releaseBinding(Binding* binding, const Tensor* holder);
void movedBinding(Tensor& to, Tensor& from);
}  // namespace detail

using Loc = std::source_location;

/// A tensor: element type, static shape, device, and either data or (inside tg::jit) a
/// symbolic value of the trace being recorded. Copies share the same immutable data.
///
/// A Tensor variable is a name for a tensor: assigning another tensor to it rebinds the name
/// and leaves the old tensor (and every other copy of it) unchanged. A jit function that read
/// the variable while tracing notices the rebinding at its next call (see tg::jit).
class Tensor {
 public:
  /// An undefined tensor; using it in an op is an error.
  Tensor() = default;
  explicit Tensor(std::shared_ptr<detail::TensorImpl> impl) : impl_(std::move(impl)) {}
  Tensor(const Tensor& other);
  Tensor(Tensor&& other) noexcept : impl_(std::move(other.impl_)) {
    if (other.binding_) detail::movedBinding(*this, other);
  }
  Tensor& operator=(const Tensor& other);
  Tensor& operator=(Tensor&& other) noexcept;
  ~Tensor() {
    if (binding_) detail::releaseBinding(binding_, this);
  }

  bool defined() const { return impl_ != nullptr; }
  const Shape& shape() const;
  DType dtype() const;
  Device device() const;
  int64_t rank() const { return static_cast<int64_t>(shape().size()); }
  int64_t numel() const;
  /// Extent of dim `d` (negative counts from the end).
  int64_t size(int64_t d) const;

  /// The elements, row-major, converted to T (float, int32_t or bool). Waits for the device:
  /// a host/device sync point.
  template <typename T = float>
  std::vector<T> to_vector(Loc loc = Loc::current()) const;
  /// The only element of a one-element tensor, as T. A sync point.
  template <typename T = float>
  T item(Loc loc = Loc::current()) const;
  /// A copy on `device` (this tensor itself if it is already there).
  Tensor to(Device device, Loc loc = Loc::current()) const;

  /// Data-dependent control flow: true when the single element is non-zero. A sync point.
  explicit operator bool() const;

  detail::TensorImpl& impl() const { return *impl_; }
  const std::shared_ptr<detail::TensorImpl>& impl_ptr() const { return impl_; }

 private:
  friend struct detail::Binding;
  std::shared_ptr<detail::TensorImpl> impl_;
  /// Null unless a jit function watches this variable (then its own Binding), or this is a
  /// copy made while tracing (then a link to the variable it was copied from).
  mutable detail::Binding* binding_ = nullptr;
};

// The element types to_vector and item support.
template <>
std::vector<float> Tensor::to_vector<float>(Loc loc) const;
template <>
std::vector<int32_t> Tensor::to_vector<int32_t>(Loc loc) const;
template <>
std::vector<bool> Tensor::to_vector<bool>(Loc loc) const;
template <>
float Tensor::item<float>(Loc loc) const;
template <>
int32_t Tensor::item<int32_t>(Loc loc) const;
template <>
bool Tensor::item<bool>(Loc loc) const;

/// Prints dtype, shape, device and the first elements: "tensor(f32[2, 3], cpu) [1, 2, ...]".
std::ostream& operator<<(std::ostream& os, const Tensor& t);

/// A number used next to a tensor; it takes the tensor's dtype.
struct Scalar {
  Scalar(double v) : value(v) {}
  double value;
};

/// A tensor operand that remembers where the expression was written, so that operators
/// (which cannot take a defaulted std::source_location) still report the user's line.
struct Located {
  Located(const Tensor& t, Loc loc = Loc::current()) : tensor(t), loc(loc) {}
  const Tensor& tensor;
  Loc loc;
};

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

/// A tensor of `shape` from row-major `data`, converted to `dtype`.
Tensor from_vector(const std::vector<float>& data, Shape shape, DType dtype = DType::F32,
                   Device device = default_device(), Loc loc = Loc::current());
Tensor from_vector(const std::vector<int32_t>& data, Shape shape, DType dtype = DType::I32,
                   Device device = default_device(), Loc loc = Loc::current());
/// `from_vector({1.5f, 2.0f}, {2})`: a braced list of numbers is read as floats.
Tensor from_vector(std::initializer_list<float> data, Shape shape, DType dtype = DType::F32,
                   Device device = default_device(), Loc loc = Loc::current());
Tensor full(Shape shape, double value, DType dtype = DType::F32,
            Device device = default_device(), Loc loc = Loc::current());
Tensor zeros(Shape shape, DType dtype = DType::F32, Device device = default_device(),
             Loc loc = Loc::current());
Tensor ones(Shape shape, DType dtype = DType::F32, Device device = default_device(),
            Loc loc = Loc::current());
/// Standard normal samples from a counter-based generator: the same seed gives the same
/// values on every machine and device (element i depends only on seed and i).
Tensor randn(Shape shape, DType dtype = DType::F32, uint64_t seed = 0,
             Device device = default_device(), Loc loc = Loc::current());
/// Positions: element (i0, i1, ...) is i_axis, in `dtype` (i32 by default; floats are exact up
/// to 2^24 in f32). While tracing, an op of the graph computed wherever it is read (no memory).
Tensor iota(Shape shape, int64_t axis, DType dtype = DType::I32, Device device = default_device(),
            Loc loc = Loc::current());
/// 0, 1, ..., n - 1 (torch.arange(n)).
Tensor arange(int64_t n, DType dtype = DType::I32, Device device = default_device(),
              Loc loc = Loc::current());
/// Uniform samples in [0, 1), same generator.
Tensor rand(Shape shape, DType dtype = DType::F32, uint64_t seed = 0,
            Device device = default_device(), Loc loc = Loc::current());

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

Tensor neg(const Tensor& x, Loc loc = Loc::current());
Tensor abs(const Tensor& x, Loc loc = Loc::current());
Tensor exp(const Tensor& x, Loc loc = Loc::current());
Tensor log(const Tensor& x, Loc loc = Loc::current());
Tensor tanh(const Tensor& x, Loc loc = Loc::current());
Tensor sigmoid(const Tensor& x, Loc loc = Loc::current());
Tensor relu(const Tensor& x, Loc loc = Loc::current());
Tensor gelu(const Tensor& x, Gelu approximate = Gelu::Erf, Loc loc = Loc::current());
Tensor sqrt(const Tensor& x, Loc loc = Loc::current());
Tensor rsqrt(const Tensor& x, Loc loc = Loc::current());
Tensor sin(const Tensor& x, Loc loc = Loc::current());
Tensor cos(const Tensor& x, Loc loc = Loc::current());
Tensor erf(const Tensor& x, Loc loc = Loc::current());
Tensor exp2(const Tensor& x, Loc loc = Loc::current());
Tensor log2(const Tensor& x, Loc loc = Loc::current());
Tensor floor(const Tensor& x, Loc loc = Loc::current());
Tensor ceil(const Tensor& x, Loc loc = Loc::current());
/// To the nearest integer value, halves to even (as torch.round).
Tensor round(const Tensor& x, Loc loc = Loc::current());
/// -1, 0 or 1 (NaN stays NaN); floats and i32.
Tensor sign(const Tensor& x, Loc loc = Loc::current());
/// x * sigmoid(x) (SiLU, swish).
Tensor silu(const Tensor& x, Loc loc = Loc::current());

// Binary ops broadcast numpy-style; both tensors must have the same dtype (cast explicitly).
Tensor add(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor sub(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor mul(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor div(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor pow(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor pow(const Tensor& a, Scalar b, Loc loc = Loc::current());
Tensor maximum(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor maximum(const Tensor& a, Scalar b, Loc loc = Loc::current());
Tensor minimum(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor minimum(const Tensor& a, Scalar b, Loc loc = Loc::current());
/// minimum(maximum(x, lo), hi), broadcasting all three; NaN propagates; where lo > hi the
/// result is hi (as torch.clamp).
Tensor clamp(const Tensor& x, const Tensor& lo, const Tensor& hi, Loc loc = Loc::current());
Tensor clamp(const Tensor& x, Scalar lo, Scalar hi, Loc loc = Loc::current());

// Comparisons give bool tensors.
Tensor eq(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor ne(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor lt(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor le(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor gt(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor ge(const Tensor& a, const Tensor& b, Loc loc = Loc::current());

/// cond ? a : b elementwise, broadcasting all three.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor where(const Tensor& cond, const Tensor& a, Scalar b, Loc loc = Loc::current());
Tensor where(const Tensor& cond, Scalar a, const Tensor& b, Loc loc = Loc::current());
Tensor cast(const Tensor& x, DType dtype, Loc loc = Loc::current());

Tensor operator-(Located x);
Tensor operator+(Located a, const Tensor& b);
Tensor operator-(Located a, const Tensor& b);
Tensor operator*(Located a, const Tensor& b);
Tensor operator/(Located a, const Tensor& b);
Tensor operator+(Located a, Scalar b);
Tensor operator-(Located a, Scalar b);
Tensor operator*(Located a, Scalar b);
Tensor operator/(Located a, Scalar b);
Tensor operator+(Scalar a, Located b);
Tensor operator-(Scalar a, Located b);
Tensor operator*(Scalar a, Located b);
Tensor operator/(Scalar a, Located b);
Tensor operator<(Located a, const Tensor& b);
Tensor operator<=(Located a, const Tensor& b);
Tensor operator>(Located a, const Tensor& b);
Tensor operator>=(Located a, const Tensor& b);
Tensor operator<(Located a, Scalar b);
Tensor operator<=(Located a, Scalar b);
Tensor operator>(Located a, Scalar b);
Tensor operator>=(Located a, Scalar b);

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

/// Broadcasts numpy-style to `shape`.
Tensor broadcast_to(const Tensor& x, Shape shape, Loc loc = Loc::current());
/// Same elements, another shape; one extent may be -1 (inferred).
Tensor reshape(const Tensor& x, Shape shape, Loc loc = Loc::current());
/// Result dim i is input dim perm[i] (negative entries count from the end).
Tensor transpose(const Tensor& x, std::vector<int64_t> perm, Loc loc = Loc::current());
/// Swaps two dims.
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1, Loc loc = Loc::current());
/// Elements start, start + step, ... below stop of dim `axis`, as Python's x[start:stop:step]:
/// negative start and stop count from the end and both are clamped to the dim; step >= 1.
/// Free in a fused kernel (an index map); copied only where a matmul or the result needs it.
Tensor slice(const Tensor& x, int64_t axis, int64_t start,
             int64_t stop = std::numeric_limits<int64_t>::max(), int64_t step = 1,
             Loc loc = Loc::current());
/// `length` elements of dim `axis` from `start` (torch.narrow): start + length must fit.
Tensor narrow(const Tensor& x, int64_t axis, int64_t start, int64_t length, Loc loc = Loc::current());
/// Dim `axis` cut into consecutive pieces of `sizes` elements, which must add up to its
/// extent (torch.split with a list): slices of `x`.
std::vector<Tensor> split(const Tensor& x, std::vector<int64_t> sizes, int64_t axis = 0,
                          Loc loc = Loc::current());
/// The tensors one after another along `axis` (torch.cat): one dtype, equal extents in every
/// other dim. The consumers fuse with it; each operand is read from memory.
Tensor concat(const std::vector<Tensor>& tensors, int64_t axis = 0, Loc loc = Loc::current());
/// Dim `axis` cut into `chunks` pieces of ceil(extent / chunks) elements, the last one smaller
/// when it does not divide (torch.chunk).
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t axis = 0, Loc loc = Loc::current());

//===----------------------------------------------------------------------===//
// Indexing with positions held on the device
//===----------------------------------------------------------------------===//
//
// The indices are i32 tensors, read by the kernels (no host round trip, no recompile per
// value). An index out of range is reported like a failed tg::check: a tg::Error naming the op
// and this line at the next sync point. Until then it is clamped into range, so nothing is
// ever read or written outside a tensor.

/// Elements of `x` at `indices` along `axis`: the result's shape is x's with that dim replaced
/// by the indices' shape (torch.index_select for a 1-D index; an embedding lookup for axis 0).
/// Fused into its consumers as an indexed load.
Tensor gather(const Tensor& x, int64_t axis, const Tensor& indices, Loc loc = Loc::current());
/// gather with a 1-D index (torch.index_select).
Tensor index_select(const Tensor& x, int64_t axis, const Tensor& indices, Loc loc = Loc::current());
/// Rows of `table` [vocab, d] for each token id: tokens.shape + [d] (torch.nn.functional.embedding).
Tensor embedding(const Tensor& table, const Tensor& tokens, Loc loc = Loc::current());
/// `size` elements of dim `axis` from position `start` (an i32 tensor of one element), every
/// other dim whole. start must lie in [0, extent - size].
Tensor dynamic_slice(const Tensor& x, int64_t axis, const Tensor& start, int64_t size,
                     Loc loc = Loc::current());
/// `x` with `update` (same dtype and rank) written from position `start` (an i32 tensor of one
/// element) along `axis` and from the static `offsets` in the other dims (empty: all 0; the
/// entry of `axis` is ignored). start must lie in [0, extent - update extent]. Its own kernel,
/// a copy of x with the update in it (in place where x is dead after it: not yet).
Tensor dynamic_update_slice(const Tensor& x, const Tensor& update, int64_t axis, const Tensor& start,
                            std::vector<int64_t> offsets = {}, Loc loc = Loc::current());

//===----------------------------------------------------------------------===//
// Reductions and composites
//===----------------------------------------------------------------------===//

/// Reductions over `axes` (negative entries count from the end; empty = every axis).
Tensor sum(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdims = false,
           Loc loc = Loc::current());
Tensor max(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdims = false,
           Loc loc = Loc::current());
Tensor mean(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdims = false,
            Loc loc = Loc::current());
Tensor min(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdims = false,
           Loc loc = Loc::current());
Tensor prod(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdims = false,
            Loc loc = Loc::current());
/// The i32 index of the largest (smallest) element along `axis`, the lowest index on ties, the
/// first NaN's if there is one (as torch.argmax). The axis must not be empty.
Tensor argmax(const Tensor& x, int64_t axis, bool keepdims = false, Loc loc = Loc::current());
Tensor argmin(const Tensor& x, int64_t axis, bool keepdims = false, Loc loc = Loc::current());
/// Over all elements, as if flattened: an i32 scalar (rank 0).
Tensor argmax(const Tensor& x, Loc loc = Loc::current());
Tensor argmin(const Tensor& x, Loc loc = Loc::current());
Tensor softmax(const Tensor& x, int64_t axis = -1, Loc loc = Loc::current());
/// Normalises over the last dim; weight and bias have that dim's extent.
Tensor layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias,
                  double epsilon = 1e-5, Loc loc = Loc::current());
Tensor layer_norm(const Tensor& x, double epsilon = 1e-5, Loc loc = Loc::current());

/// a[..., M, K] @ b[..., K, N]. Batch dims broadcast numpy-style; rank-2 operands are shared
/// by every batch without copying.
Tensor matmul(const Tensor& a, const Tensor& b, Loc loc = Loc::current());

//===----------------------------------------------------------------------===//
// jit
//===----------------------------------------------------------------------===//

/// A dimension whose size may change from call to call of a jit function (JitOptions::dynamic):
/// its name, for reports, errors and the IR (letters, digits and '_', not starting with a
/// digit), and the sizes it may take, min to max inclusive (1 <= min <= max).
struct Dim {
  Dim(std::string name, int64_t min, int64_t max) : name(std::move(name)), min(min), max(max) {}
  std::string name;
  int64_t min;
  int64_t max;
};

/// Dim `dim` (negative: from the end) of argument `arg` of a jit function has the size of
/// `size`. Entries naming Dims of one name are one symbol: their sizes are equal in every call
/// (a call where they differ is an error naming both), which lets the compiler know that two
/// arguments' dims match.
struct DynamicDim {
  int arg = 0;
  int dim = 0;
  Dim size;
};

struct JitOptions {
  /// Fuse elementwise chains into single kernels. false = one kernel per op, the baseline.
  bool fuse = true;
  /// With `fuse`: a reduction over trailing dims (softmax, layer_norm, RMSNorm, a row sum)
  /// is one row kernel with the elementwise ops that produce its input and those that read
  /// its result back over the rows. false: every reduction is a kernel of its own.
  bool fuse_reductions = true;
  /// With `fuse`: softmax(modify(q @ k^T)) @ v with more than 16 query rows per head
  /// (prefill, training) is one flash-attention kernel on sm_90a, the scores never stored;
  /// the ops between the products (a scale, masks, which also skip the key blocks they
  /// remove, biases, a soft cap, a cast) run inside it. Decode-sized attention (at most 16
  /// query rows per head: a token's query heads on their key/value head) is split over the
  /// keys (flash-decoding: two kernels, the second combining the chunks; chunks a mask
  /// removes, as past a decode position, are not read) where that kernel takes it (head dims
  /// of 64, 128 or 256 for 16-bit types, only casts after the softmax). false: the scores,
  /// the softmax and p @ v are kernels of their own.
  bool fuse_attention = true;
  /// With `fuse_attention`: decode-sized attention the split kernel does not take (other
  /// head dims, a value dim that differs) is one cluster kernel. Off by default: on the H200
  /// that kernel is slower than the separate ones (benchmarks/RESULTS.md, 2026-12-03 14:30).
  bool decode_attention = false;
  /// How kernels evaluate exp, tanh, division, ... (see tg/Support/Precision.h).
  Precision precision = Precision::Auto;
  /// Throw tg::GraphBreakError at the first graph break instead of splitting the graph.
  bool fullgraph = false;
  /// A name for reports and dumps (defaults to the file:line where jit was called).
  std::string name = {};
  /// Signatures (dtype, shape, device per argument) compiled before tg warns, once, that the
  /// function keeps recompiling.
  int recompile_limit = 8;
  /// On CUDA, replay a break-free function as one CUDA graph from its second call on: one
  /// launch per call instead of one per kernel, and new inputs only update the graph's kernel
  /// parameters. false launches kernel by kernel. The report says which one a graph uses.
  bool cuda_graphs = true;
  /// On CUDA, time every kernel of every call with device events, and report the device time
  /// per call of each distinct kernel (JitReport::Graph::profile). For finding what a graph
  /// spends its time on: calls then launch kernel by kernel (no CUDA graph) and each waits for
  /// the previous call's events, so the function runs slower. The environment variable
  /// TG_PROFILE=1 turns it on for every function.
  bool profile = false;
  /// Positions of arguments the call may reuse the memory of for its results: a
  /// dynamic_update_slice of a donated argument writes in place (a KV cache updated without a
  /// copy; the report's `updates` say which did). After the call a donated tensor, and every
  /// copy of its handle, is unusable (an error names the call); pass the result back instead:
  /// `cache = step(cache, ...)`. A donated argument whose memory another tensor shares is
  /// copied first, so no other tensor ever sees it change.
  std::vector<int> donate = {};
  /// Argument dims whose sizes may change between calls within their Dim's range:
  /// `{.dynamic = {{0, 0, tg::Dim("batch", 1, 256)}, {0, 1, tg::Dim("seq", 1, 8192)}}}`. A call
  /// whose size of such a dim is outside its range, or whose dims of one Dim differ, is a
  /// tg::Error naming the argument, the dim and the range. One compile serves every size from
  /// 2 in the ranges (a size of 1 is a variant of its own): kernels take the sizes as
  /// arguments. In progress (issue 18): graphs of elementwise and row kernels compile so; one
  /// with a matmul, attention or another reduction is compiled per size, and the report's
  /// `symbolicSizes` say why. At a compile the lambda is traced at a few other sizes too, and
  /// again at the first 8 sizes a compiled graph serves (a graph that differs there is a
  /// tg::Error at the call), so its host side effects run that often.
  std::vector<DynamicDim> dynamic = {};
};

/// What tg::jit records about one function (f.report()). Printable; also plain data.
struct JitReport {
  /// A graph break or a host/device sync point, where it happened and what to do about it.
  struct Event {
    std::string what;    ///< "item()", "to_vector()", "operator bool", "synchronize()", ...
    std::string reason;  ///< why it breaks the graph or waits for the device
    std::string hint;    ///< how to avoid it
    SourceLoc loc;       ///< the user's file:line:function
    /// True when C++ gave no location (operator bool): `loc` is then the line of the op that
    /// computed the value, the nearest place tg recorded.
    bool approximateLocation = false;
    uint64_t count = 0;  ///< how many times it happened
    int segment = -1;    ///< breaks: the graph segment that ended there
  };
  /// A tensor the lambda captured (an implicit input of the graph): where it was read.
  struct Capture {
    std::string type;  ///< "f32[1024, 1024] cuda"
    SourceLoc loc;     ///< the op that first read it (unknown: the lambda returned it as is)
    /// Held by the lambda object (captured by value): rebinding the variable outside the
    /// lambda does not change it, as for any C++ by-value capture. Otherwise it is read
    /// through a variable (captured by reference, a member or element of one), whose current
    /// tensor every call uses.
    bool byValue = false;
  };
  /// One compiled graph (a whole function, or a segment between breaks).
  struct Graph {
    int index = 0;
    size_t ops = 0;      ///< ops in the traced graph
    size_t kernels = 0;  ///< kernels launched per run (0: the CPU reference interpreter runs it)
    /// On CUDA: the distinct kernels those launches run (a model's layers share theirs), and
    /// how they were found when the graph was compiled: compiled by NVRTC (taking nvrtcMs,
    /// summed over the threads that compiled them in parallel), read from the on-disk cache,
    /// or already loaded in this process.
    size_t distinctKernels = 0;
    size_t kernelsCompiled = 0, kernelsFromDisk = 0, kernelsInMemory = 0;
    double nvrtcMs = 0;
    uint64_t runs = 0;
    /// Wall time of its compilation, in ms: import, passes, code generation and, on CUDA, the
    /// kernels (read from the disk cache, or compiled by NVRTC in parallel) and their loading.
    double compileMs = 0;
    /// compileMs by step, in order: import (the trace to tg IR, and its text for ir()), verify,
    /// each pipeline stage, codegen, and on CUDA kernels (disk cache or NVRTC, and loading).
    std::vector<std::pair<std::string, double>> compileStagesMs;
    /// Whether replays launch the kernels as one CUDA graph (a break-free function on CUDA,
    /// from its second call on, unless JitOptions::cuda_graphs is false).
    bool cudaGraph = false;
    uint64_t cudaGraphLaunches = 0;  ///< runs launched as one CUDA graph
    /// Kernel nodes given new parameters before a graph launch (calls on buffers the graph's
    /// kept instances did not hold: e.g. every result kept alive, so each call has a new one).
    uint64_t cudaGraphParameterUpdates = 0;
    /// On CUDA, why runs launch kernel by kernel when they do ("JitOptions::cuda_graphs is
    /// false", graph breaks, the driver's error); empty otherwise.
    std::string noCudaGraphReason;
    /// Device memory one run needs, in bytes as requested (the memory pool may round up): the
    /// temporaries' arena and the constants (both allocated once and kept while the function
    /// lives) plus the result buffers each run allocates. Inputs are the caller's and not
    /// counted. 0 on the CPU.
    size_t peakDeviceBytes = 0;
    /// On CUDA, each dynamic_update_slice: in place (in whose memory) or a copy of its input
    /// (and why: an argument that is not donated, a later reader, ...).
    std::vector<std::string> updates;
    /// The tensors its trace captured, in input order (after the call's arguments).
    std::vector<Capture> captures;
    /// With JitOptions::profile, on CUDA: each distinct kernel's device time per run, slowest
    /// first, over `profiledRuns` runs (all but the first profiled one, which loads modules).
    /// A launch is timed from its start to the next launch's start, gaps included.
    struct KernelTime {
      std::string kernel;   ///< its name (the first fusion that emitted it)
      std::string what;     ///< the plan's description of its launch (path, shape, grid)
      size_t launches = 0;  ///< launches per run
      double usPerRun = 0;  ///< microseconds per run, all its launches together
    };
    std::vector<KernelTime> profile;
    uint64_t profiledRuns = 0;
    /// Why calls run the lambda (and find this graph by its structure) instead of replaying
    /// it: a segment between graph breaks, or a capture tg cannot watch. Empty when replayed.
    std::string notReplayedBecause;
    /// Compiled once for ranges of sizes (JitOptions::dynamic): its symbols ("batch in [2,
    /// 256], seq = 1": a fixed one is a variant of its own), the sizes of its last run (what
    /// peakDeviceBytes is for), and how many times runs changed the sizes (each evaluates the
    /// sizes again: no compilation). Empty and 0 for a graph of fixed shapes.
    std::string symbols;
    std::string lastSizes;
    uint64_t sizeChanges = 0;
    /// Guarded variants: launches that run another kernel at some sizes (a matmul's smaller
    /// tiles for few rows), chosen at each size change with no compilation: "mlp_k0: where
    /// tokens <= 768, rows up to 768: 128 x 128 tiles, 6 stages (taken at the last run)".
    std::vector<std::string> sizeVariants;
  };

  std::string name;
  SourceLoc definedAt;
  uint64_t calls = 0;
  /// Calls served by replaying a compiled break-free program, without running the lambda.
  uint64_t replays = 0;
  /// Graph lookups that found a compiled graph (hits) or compiled a new one (misses).
  uint64_t cacheHits = 0;
  uint64_t cacheMisses = 0;
  std::vector<Graph> graphs;
  std::vector<Event> breaks;
  std::vector<Event> syncs;
  /// Calls that found a captured variable holding a new tensor of the same type (after
  /// `w = w - lr * g`, say) and replayed on it without tracing.
  uint64_t captureRebinds = 0;
  /// Calls that ran the lambda again because a captured variable changed in another way (a
  /// new shape, dtype or device; the variable destroyed).
  uint64_t captureRetraces = 0;
  /// Why each new graph was compiled after the first: "input 0 shape [1024] -> [2048]", or
  /// "capture 0 (model.cpp:12) shape [4] -> [1]".
  std::vector<std::string> recompiles;
  int recompileLimit = 8;
  bool recompileLimitExceeded = false;
  /// JitOptions::dynamic: its symbols, ranges and dims ("batch in [1, 256] (argument 0 dim
  /// 0)"); empty without dynamic dims.
  std::string dynamicDims;
  /// With dynamic dims, per signature compiled: its sizes as polynomials of the symbols, found
  /// by tracing at other sizes (the results' types and every size that depends on a symbol:
  /// "result 0: f32[batch*seq, 1024]"), or why they cannot be (a size through a division, a
  /// graph that changes with a size, a graph break), with the op's line.
  std::vector<std::string> symbolicSizes;

  /// A readable report.
  std::string str() const;
};

std::ostream& operator<<(std::ostream& os, const JitReport& report);

/// Waits until the GPU has finished everything queued (a sync point, recorded). Raises any
/// tg::check that failed since the last sync point.
void synchronize(Loc loc = Loc::current());

/// An asynchronous check: every element of the bool tensor `cond` must be true. Nothing waits:
/// the device records a failure, and it surfaces as a tg::Error carrying `message` and this
/// line at the next point where the host synchronizes anyway (to_vector, item, synchronize).
/// Inside tg::jit it is part of the graph and never breaks it.
void check(const Tensor& cond, const std::string& message, Loc loc = Loc::current());

/// Every host/device sync point outside jit functions so far (a host read of a CUDA tensor, a
/// blocking copy, synchronize), by location with counts; and a way to start over.
std::vector<JitReport::Event> sync_points();
void clear_sync_points();

/// The type of an argument, for tracing without data (JitFunction::trace_ir).
struct TensorSpec {
  Shape shape;
  DType dtype = DType::F32;
};

namespace detail {

template <typename>
using AsTensor = const Tensor&;

/// The lambda as tracing runs it: symbolic arguments in, results out. A borrowed reference to
/// a callable: unlike std::function it never allocates, and it must not outlive the call it is
/// passed to.
class TraceRef {
 public:
  /// `callable` runs the lambda; `closure` is the user's lambda object itself, whose bytes hold
  /// its by-value captures (the report tells them from variables captured by reference).
  template <typename Callable>
    requires(!std::is_same_v<std::decay_t<Callable>, TraceRef>)
  TraceRef(const Callable& callable, const void* closure = nullptr, size_t closureSize = 0)
      : object_(&callable),
        closure_(static_cast<const char*>(closure)),
        closureSize_(closureSize),
        call_([](const void* object, const std::vector<Tensor>& in) {
          return (*static_cast<const Callable*>(object))(in);
        }) {}

  std::vector<Tensor> operator()(const std::vector<Tensor>& in) const { return call_(object_, in); }
  /// Whether `p` points into the lambda object (a by-value capture).
  bool insideClosure(const void* p) const {
    const char* c = static_cast<const char*>(p);
    return closure_ && c >= closure_ && c < closure_ + closureSize_;
  }

 private:
  const void* object_;
  const char* closure_;
  size_t closureSize_;
  std::vector<Tensor> (*call_)(const void*, const std::vector<Tensor>&);
};

struct Signature;  // JitState.h
struct Entry;

/// The type-independent part of a jit function: signature cache, tracing, compilation and
/// execution. Defined in frontend/lib/Jit.cpp.
class JitCore {
 public:
  JitCore(JitOptions options, Loc definedAt);
  ~JitCore();
  JitCore(const JitCore&) = delete;
  JitCore& operator=(const JitCore&) = delete;

  /// Runs the function on `args`, writing one tensor per result of the lambda to `results`.
  /// A known signature replays the compiled program, allocating only the results. `site` is
  /// the caller's line, for errors of the call (out of memory names it).
  void call(std::span<const Tensor* const> args, std::span<Tensor> results, TraceRef trace,
            const Loc& site);
  /// The tg IR of the graph compiled for the most recent call (empty before the first).
  std::string ir() const;
  /// Traces `trace` on symbolic arguments of the given types and returns the tg IR, without
  /// compiling or running anything.
  std::string traceIr(const std::vector<TensorSpec>& specs, TraceRef trace) const;
  JitReport report() const;
  /// True while a trace is being recorded on this thread.
  static bool tracing();

 private:
  /// call() without the call site: finds (or traces and compiles) the signature's entry and
  /// runs it.
  void dispatch(std::span<const Tensor* const> args, std::span<Tensor> results, TraceRef trace,
                const Loc& site);
  /// JitOptions::dynamic on a signature no graph serves yet: checks the sizes against their
  /// ranges (tg::Error at `site`), finds how the trace's sizes follow the symbols
  /// (SymbolicTrace.h) and compiles one graph for the ranges. The new variant, or null when
  /// there is none (the report says why; the signature is then compiled for itself).
  Entry* compileForSizes(const Signature& sig, TraceRef trace, const Loc& site);
  /// The variant compiled for ranges of sizes that serves `args`, with their symbols' sizes in
  /// the state's symbolValues; null if none does.
  Entry* findVariant(std::span<const Tensor* const> args);
  /// A warning, once, when the function has compiled more graphs than its recompile_limit.
  void warnIfPastRecompileLimit();
  /// For the first sizes a variant compiled for ranges serves: traces the lambda there and
  /// throws tg::Error at `site` when it builds another graph (C++ control flow on a size).
  void checkSizes(Entry& variant, std::span<const Tensor* const> args, TraceRef trace, const Loc& site);
  /// JitOptions::donate against this call: positions within its arguments, no donated tensor
  /// passed twice.
  void checkDonations(std::span<const Tensor* const> args, const Loc& site) const;
  /// After the call: the donated arguments' tensors give up their data (TensorImpl::donatedTo).
  void donate(std::span<const Tensor* const> args, const Loc& site) const;
  /// Errors raised in the lambda name the jit function ("jit 'mlp'") instead of the
  /// compiler's spelling of the lambda's operator().
  static bool isLambda(const SourceLoc& loc);
  SourceLoc inJitFunction(const SourceLoc& loc) const;
  struct State;
  std::unique_ptr<State> state_;
};

/// How a lambda's result maps to a list of tensors and back.
template <typename R>
struct Results;

template <>
struct Results<Tensor> {
  static constexpr size_t count = 1;
  static std::vector<Tensor> flatten(Tensor t) { return {std::move(t)}; }
  static Tensor unflatten(std::span<Tensor> v) { return std::move(v[0]); }
};

template <typename... Ts>
struct Results<std::tuple<Ts...>> {
  static_assert((std::is_same_v<Ts, Tensor> && ...), "jit lambdas return Tensors");
  static constexpr size_t count = sizeof...(Ts);
  static std::vector<Tensor> flatten(std::tuple<Ts...> t) {
    return std::apply([](auto&&... xs) { return std::vector<Tensor>{std::move(xs)...}; },
                      std::move(t));
  }
  static std::tuple<Ts...> unflatten(std::span<Tensor> v) {
    return unflattenImpl(v, std::index_sequence_for<Ts...>{});
  }
  template <size_t... I>
  static std::tuple<Ts...> unflattenImpl(std::span<Tensor> v, std::index_sequence<I...>) {
    return std::tuple<Ts...>{std::move(v[I])...};
  }
};

template <typename A, typename B>
struct Results<std::pair<A, B>> : Results<std::tuple<A, B>> {
  static std::pair<A, B> unflatten(std::span<Tensor> v) { return {std::move(v[0]), std::move(v[1])}; }
};

}  // namespace detail

/// A traced and compiled function. Calls with a new signature (dtype, shape and device of each
/// argument) trace the lambda once and compile; calls with a known signature replay the
/// compiled program without running the lambda. A call gives what calling the lambda would:
/// tensors it captures are read from the variables it read them through (captured by
/// reference, members, elements), as they are at the call; rebinding such a variable is seen
/// (a new shape traces again). By-value captures are the lambda's own copies. Host scalars and
/// host-side control flow are constants of the trace.
/// Threads: use tg from one host thread at a time. A JitFunction's signature cache, report and
/// per-call buffers are unsynchronised (the per-call path takes no lock), and so is the
/// runtime's pinned staging buffer for host <-> device copies; compilation, the kernel caches
/// and the sync-point log are locked. All of tg's work goes to one CUDA stream.
template <typename F>
class JitFunction {
 public:
  JitFunction(F fn, JitOptions options, Loc definedAt)
      : fn_(std::make_shared<F>(std::move(fn))),
        core_(std::make_shared<detail::JitCore>(std::move(options), definedAt)) {}

  /// Calls the function. Converting the first argument records the caller's line, which
  /// errors of the call (out of device memory, say) name.
  template <typename... Rest>
  auto operator()(Located first, const Rest&... rest) {
    static_assert((std::is_same_v<Rest, Tensor> && ...), "jit functions take tg::Tensor arguments");
    return call(first.loc, first.tensor, rest...);
  }
  /// A function of no arguments (its lambda reads the tensors it captures).
  auto operator()(Loc site = Loc::current())
    requires std::is_invocable_v<F&>
  {
    return call(site);
  }

  /// The tg IR compiled for the most recent call.
  std::string ir() const { return core_->ir(); }

  /// Graphs and segments, breaks and sync points (with the user's lines), kernels, cache hits
  /// and misses, and recompiles with their reasons.
  JitReport report() const { return core_->report(); }

  /// The tg IR the lambda traces to for arguments of these types (nothing is compiled or run).
  template <typename... Specs>
  std::string trace_ir(const Specs&... specs) const {
    static_assert((std::is_same_v<Specs, TensorSpec> && ...), "trace_ir takes tg::TensorSpec");
    using R = std::decay_t<std::invoke_result_t<F&, detail::AsTensor<Specs>...>>;
    F& fn = *fn_;
    auto trace = [&fn](const std::vector<Tensor>& in) {
      return detail::Results<R>::flatten(invoke(fn, in, std::index_sequence_for<Specs...>{}));
    };
    return core_->traceIr({specs...}, trace);
  }

 private:
  /// The per-call path: no allocation here (the arguments and results live on the stack, the
  /// lambda is passed by reference); JitCore allocates only the results.
  template <typename... Args>
  auto call(const Loc& site, const Args&... args) {
    using R = std::decay_t<std::invoke_result_t<F&, const Args&...>>;
    if (detail::JitCore::tracing()) return (*fn_)(args...);  // nested jit: inline it
    const std::array<const Tensor*, sizeof...(Args)> in{&args...};
    F& fn = *fn_;
    auto trace = [&fn](const std::vector<Tensor>& symbolic) {
      return detail::Results<R>::flatten(
          invoke(fn, symbolic, std::index_sequence_for<Args...>{}));
    };
    std::array<Tensor, detail::Results<R>::count> out;
    core_->call(in, out, detail::TraceRef(trace, fn_.get(), sizeof(F)), site);
    return detail::Results<R>::unflatten(out);
  }

  template <size_t... I>
  static auto invoke(F& fn, const std::vector<Tensor>& in, std::index_sequence<I...>) {
    return fn(in[I]...);
  }

  std::shared_ptr<F> fn_;
  std::shared_ptr<detail::JitCore> core_;
};

/// Traces `fn` (a callable over const tg::Tensor& returning a Tensor or a tuple/pair of
/// Tensors) on its first call and compiles it.
template <typename F>
JitFunction<F> jit(F fn, JitOptions options = {}, Loc loc = Loc::current()) {
  return JitFunction<F>(std::move(fn), std::move(options), loc);
}

}  // namespace tg
