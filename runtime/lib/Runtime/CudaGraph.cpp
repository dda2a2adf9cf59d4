//===- CudaGraph.cpp - Building, updating and launching a plan's CUDA graph ===//
#include "tg/Runtime/CudaGraph.h"

#include "CudaDriver.h"
#include "tg/Support/Error.h"

#include <cstring>

namespace tg::rt {

namespace {

/// The driver's description of launch `l` with the parameters `params` holds now (the driver
/// copies the values it points to).
CUDA_KERNEL_NODE_PARAMS nodeParams(void* function, const LaunchDims& dims, LaunchParams& params,
                                   size_t l) {
  CUDA_KERNEL_NODE_PARAMS p{};
  p.func = static_cast<CUfunction>(function);
  p.gridDimX = dims.grid[0];
  p.gridDimY = dims.grid[1];
  p.gridDimZ = dims.grid[2];
  p.blockDimX = dims.block[0];
  p.blockDimY = dims.block[1];
  p.blockDimZ = dims.block[2];
  p.sharedMemBytes = dims.sharedBytes;
  p.kernelParams = params.pointers(l);
  return p;
}

}  // namespace

CudaGraph::CudaGraph(Gpu& gpu, const Plan& plan, const std::vector<void*>& functions,
                     LaunchParams& params)
    : gpu_(gpu) {
  const CudaDriver& d = *static_cast<const CudaDriver*>(gpu_.driver_);
  try {
    CUgraph graph = nullptr;
    gpu_.check(d.cuGraphCreate(&graph, 0), "cuGraphCreate");
    graph_ = graph;
    CUgraphNode previous = nullptr;
    for (size_t l = 0; l < plan.launches.size(); ++l) {
      Node node;
      node.function = functions[plan.launches[l].kernel];
      node.dims = plan.launches[l].dims;
      CUDA_KERNEL_NODE_PARAMS p = nodeParams(node.function, node.dims, params, l);
      CUgraphNode handle = nullptr;
      gpu_.check(d.cuGraphAddKernelNode(&handle, graph, previous ? &previous : nullptr,
                                        previous ? 1 : 0, &p),
                 "cuGraphAddKernelNode");
      node.handle = handle;
      node.heldOffset = held_.size();
      std::span<const std::byte> bytes = params.bytes(l);
      held_.insert(held_.end(), bytes.begin(), bytes.end());
      nodes_.push_back(node);
      previous = handle;
    }
    CUgraphExec exec = nullptr;
    gpu_.check(d.cuGraphInstantiate(&exec, graph, 0), "cuGraphInstantiate");
    exec_ = exec;
  } catch (...) {
    release();
    throw;
  }
}

CudaGraph::~CudaGraph() { release(); }

void CudaGraph::release() {
  // Errors here (e.g. at process exit, after the driver shut down) cannot be reported.
  const CudaDriver& d = *static_cast<const CudaDriver*>(gpu_.driver_);
  if (exec_) d.cuGraphExecDestroy(static_cast<CUgraphExec>(exec_));
  if (graph_) d.cuGraphDestroy(static_cast<CUgraph>(graph_));
  exec_ = graph_ = nullptr;
}

void CudaGraph::launch(LaunchParams& params) {
  const CudaDriver& d = *static_cast<const CudaDriver*>(gpu_.driver_);
  CUgraphExec exec = static_cast<CUgraphExec>(exec_);
  for (size_t l = 0; l < nodes_.size(); ++l) {
    Node& node = nodes_[l];
    std::span<const std::byte> now = params.bytes(l);
    std::byte* held = held_.data() + node.heldOffset;
    if (std::memcmp(held, now.data(), now.size()) == 0) continue;
    CUDA_KERNEL_NODE_PARAMS p = nodeParams(node.function, node.dims, params, l);
    gpu_.check(d.cuGraphExecKernelNodeSetParams(exec, static_cast<CUgraphNode>(node.handle), &p),
               "cuGraphExecKernelNodeSetParams");
    std::memcpy(held, now.data(), now.size());
    ++parameterUpdates_;
  }
  gpu_.check(d.cuGraphLaunch(exec, static_cast<CUstream>(gpu_.stream_)), "cuGraphLaunch");
}

}  // namespace tg::rt
