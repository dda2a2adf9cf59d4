//===- CudaGraph.h - A plan's launches as one CUDA graph, replayed with new parameters ===//
//
// A replayed jit function queues the same kernels on every call; only the addresses in their
// parameters change (new inputs, fresh result buffers), and for a plan compiled for a range of
// sizes the size arguments and grids when the sizes change. As a CUDA graph, those launches
// cost one cuGraphLaunch instead of one cuLaunchKernel per kernel.
//
// The graph is built explicitly, not by stream capture: one kernel node per launch, each
// depending on the one before, so the kernels run in plan order exactly as on the stream (the
// temporaries share arena memory by liveness, so the order matters).
//
// Up to kInstances executable instances of the graph are kept, each remembering the parameter
// bytes and grids it holds. A call launches the instance that already holds its parameters;
// only when none does, the most recently launched one gets the new values of the nodes that differ
// (cuGraphExecKernelNodeSetParams; nothing is re-captured), or a new instance is made while
// fewer than kInstances exist. So a loop that alternates between a few buffer sets (two result
// buffers recycled by Gpu::allocate, a few inputs in rotation) costs one cuGraphLaunch per call
// and no update. Results are allocated by the Executor, stream-ordered on the same stream,
// before the graph is queued: the same as for direct launches. This header is free of CUDA
// headers.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Runtime/LaunchParams.h"
#include "tg/Runtime/Gpu.h"
#include "tg/Runtime/Plan.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tg::rt {

class CudaGraph {
 public:
  /// Builds and instantiates the graph of `plan`'s launches (`functions`: the loaded kernel
  /// each launch runs now) with the parameter values `params` holds now and the launch
  /// dimensions `dims` (one per launch). Throws tg::Error naming the driver call that failed.
  CudaGraph(Gpu& gpu, const Plan& plan, std::span<void* const> functions,
            LaunchParams& params, std::span<const LaunchDims> dims);
  ~CudaGraph();
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;

  /// Queues the graph on tg's stream with the parameter values in `params` and the launch
  /// dimensions `dims`: on the instance that holds them, else on one given the new values (see
  /// above). No host sync. Throws tg::Error when the driver refuses a step.
  /// `functions`: each launch's kernel, which may change too (a plan's guarded variants).
  void launch(LaunchParams& params, std::span<const LaunchDims> dims, std::span<void* const> functions);

  /// Nodes given new parameters since the graph was built (for tests and benchmarks).
  uint64_t parameterUpdates() const { return parameterUpdates_; }

  static constexpr size_t kInstances = 4;

 private:
  struct Instance {
    void* exec = nullptr;          // CUgraphExec
    std::vector<std::byte> held;   // the parameter bytes of every node, at Node::heldOffset
    std::vector<LaunchDims> dims;  // the launch dimensions of every node
    std::vector<void*> functions;  // the kernel of every node
    uint64_t lastLaunch = 0;
  };
  /// Whether `instance` holds every node's parameters, dimensions and kernel as given now.
  bool holds(const Instance& instance, const LaunchParams& params, std::span<const LaunchDims> dims,
             std::span<void* const> functions) const;
  /// Instantiates the graph (its nodes hold the parameters it was built with).
  Instance& addInstance();
  /// Gives `instance` the values of `params`, `dims` and `functions` for every node that differs.
  void update(Instance& instance, LaunchParams& params, std::span<const LaunchDims> dims,
              std::span<void* const> functions);
  void release();

  Gpu& gpu_;
  void* graph_ = nullptr;  // CUgraph
  struct Node {
    void* handle = nullptr;  // CUgraphNode
    size_t heldOffset = 0;  // where Instance::held keeps this node's parameter bytes
  };
  std::vector<Node> nodes_;
  std::vector<std::byte> built_;  // the parameter bytes the graph was built with
  std::vector<LaunchDims> builtDims_;
  std::vector<void*> builtFunctions_;
  std::vector<Instance> instances_;
  uint64_t launches_ = 0;
  uint64_t parameterUpdates_ = 0;
};

}  // namespace tg::rt
