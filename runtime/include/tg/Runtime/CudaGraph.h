//===- CudaGraph.h - A plan's launches as one CUDA graph, replayed with new parameters ===//
//
// A replayed jit function queues the same kernels with the same dimensions on every call; only
// the addresses in their parameters change (new inputs, fresh result buffers). As a CUDA graph,
// those launches cost one cuGraphLaunch instead of one cuLaunchKernel per kernel.
//
// The graph is built explicitly, not by stream capture: one kernel node per launch, each
// depending on the one before, so the kernels run in plan order exactly as on the stream (the
// temporaries share arena memory by liveness, so the order matters). Before each launch, the
// nodes whose parameter bytes differ from what they hold get the new values
// (cuGraphExecKernelNodeSetParams); nothing is re-instantiated. Results are allocated by the
// Executor, stream-ordered on the same stream, before the graph is queued: the same as for direct
// launches. This header is free of CUDA headers.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Runtime/LaunchParams.h"
#include "tg/Runtime/Plan.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tg::rt {

class CudaGraph {
 public:
  /// Builds and instantiates the graph of `plan`'s launches (`functions`: the loaded entry of
  /// each plan kernel) with the parameter values `params` holds now. Throws tg::Error naming the
  /// driver call that failed.
  CudaGraph(Gpu& gpu, const Plan& plan, const std::vector<void*>& functions,
            LaunchParams& params);
  ~CudaGraph();
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;

  /// Gives every node whose parameters differ in `params` its new values, then queues the
  /// graph on tg's stream. No host sync. Throws tg::Error when the driver refuses either step.
  void launch(LaunchParams& params);

  /// Nodes given new parameters since the graph was built (for tests and benchmarks).
  uint64_t parameterUpdates() const { return parameterUpdates_; }

 private:
  void release();

  Gpu& gpu_;
  void* graph_ = nullptr;  // CUgraph
  void* exec_ = nullptr;   // CUgraphExec
  struct Node {
    void* handle = nullptr;  // CUgraphNode
    void* function = nullptr;
    LaunchDims dims;
    size_t heldOffset = 0;  // where `held_` keeps the parameter bytes this node holds
  };
  std::vector<Node> nodes_;
  std::vector<std::byte> held_;
  uint64_t parameterUpdates_ = 0;
};

}  // namespace tg::rt
