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
  setLaunchDims(p, dims);
  p.kernelParams = params.pointers(l);
  return p;
}

}  // namespace

CudaGraph::CudaGraph(Gpu& gpu, const Plan& plan, std::span<void* const> functions,
                     LaunchParams& params, std::span<const LaunchDims> dims)
    : gpu_(gpu), builtDims_(dims.begin(), dims.end()), builtFunctions_(functions.begin(), functions.end()) {
  const CudaDriver& d = *static_cast<const CudaDriver*>(gpu_.driver_);
  try {
    CUgraph graph = nullptr;
    gpu_.check(d.cuGraphCreate(&graph, 0), "cuGraphCreate");
    graph_ = graph;
    CUgraphNode previous = nullptr;
    for (size_t l = 0; l < plan.launches.size(); ++l) {
      Node node;
      CUDA_KERNEL_NODE_PARAMS p = nodeParams(builtFunctions_.at(l), builtDims_.at(l), params, l);
      CUgraphNode handle = nullptr;
      if (plan.programmaticLaunches && previous) {
        // A programmatic edge: this kernel may launch once every block of the previous one has
        // run griddepcontrol.launch_dependents (or exited); it waits for that kernel's
        // completion itself (TG_GRID_PROLOGUE).
        gpu_.check(d.cuGraphAddKernelNode(&handle, graph, nullptr, 0, &p), "cuGraphAddKernelNode");
        CUgraphEdgeData edge{};
        edge.from_port = CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC;
        edge.type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
        gpu_.check(d.cuGraphAddDependencies(graph, &previous, &handle, &edge, 1), "cuGraphAddDependencies");
      } else {
        gpu_.check(d.cuGraphAddKernelNode(&handle, graph, previous ? &previous : nullptr,
                                          previous ? 1 : 0, &p),
                   "cuGraphAddKernelNode");
      }
      node.handle = handle;
      node.heldOffset = built_.size();
      std::span<const std::byte> bytes = params.bytes(l);
      built_.insert(built_.end(), bytes.begin(), bytes.end());
      nodes_.push_back(node);
      previous = handle;
    }
    instances_.reserve(kInstances);
    addInstance();
  } catch (...) {
    release();
    throw;
  }
}

CudaGraph::~CudaGraph() { release(); }

void CudaGraph::release() {
  // Errors here (e.g. at process exit, after the driver shut down) cannot be reported.
  const CudaDriver& d = *static_cast<const CudaDriver*>(gpu_.driver_);
  for (Instance& i : instances_)
    if (i.exec) d.cuGraphExecDestroy(static_cast<CUgraphExec>(i.exec));
  instances_.clear();
  if (graph_) d.cuGraphDestroy(static_cast<CUgraph>(graph_));
  graph_ = nullptr;
}

CudaGraph::Instance& CudaGraph::addInstance() {
  const CudaDriver& d = *static_cast<const CudaDriver*>(gpu_.driver_);
  CUgraphExec exec = nullptr;
  gpu_.check(d.cuGraphInstantiate(&exec, static_cast<CUgraph>(graph_), 0), "cuGraphInstantiate");
  Instance& i = instances_.emplace_back();
  i.exec = exec;
  i.held = built_;
  i.dims = builtDims_;
  i.functions = builtFunctions_;
  return i;
}

static bool sameDims(const LaunchDims& a, const LaunchDims& b) {
  return std::memcmp(a.grid, b.grid, sizeof a.grid) == 0 && std::memcmp(a.block, b.block, sizeof a.block) == 0 &&
         a.sharedBytes == b.sharedBytes;
}

bool CudaGraph::holds(const Instance& instance, const LaunchParams& params, std::span<const LaunchDims> dims,
                      std::span<void* const> functions) const {
  for (size_t l = 0; l < nodes_.size(); ++l) {
    if (!sameDims(instance.dims[l], dims[l]) || instance.functions[l] != functions[l]) return false;
    std::span<const std::byte> now = params.bytes(l);
    if (std::memcmp(instance.held.data() + nodes_[l].heldOffset, now.data(), now.size()) != 0)
      return false;
  }
  return true;
}

void CudaGraph::update(Instance& instance, LaunchParams& params, std::span<const LaunchDims> dims,
                       std::span<void* const> functions) {
  const CudaDriver& d = *static_cast<const CudaDriver*>(gpu_.driver_);
  for (size_t l = 0; l < nodes_.size(); ++l) {
    const Node& node = nodes_[l];
    std::span<const std::byte> now = params.bytes(l);
    std::byte* held = instance.held.data() + node.heldOffset;
    if (std::memcmp(held, now.data(), now.size()) == 0 && sameDims(instance.dims[l], dims[l]) &&
        instance.functions[l] == functions[l])
      continue;
    // Grids may change too (a plan's sizes did), and the kernel (a guarded variant): every
    // field may, the function within its context.
    CUDA_KERNEL_NODE_PARAMS p = nodeParams(functions[l], dims[l], params, l);
    // Takes effect from the next launch of this instance; launches already queued keep theirs.
    gpu_.check(d.cuGraphExecKernelNodeSetParams(static_cast<CUgraphExec>(instance.exec),
                                                static_cast<CUgraphNode>(node.handle), &p),
               "cuGraphExecKernelNodeSetParams");
    std::memcpy(held, now.data(), now.size());
    instance.dims[l] = dims[l];
    instance.functions[l] = functions[l];
    ++parameterUpdates_;
  }
}

void CudaGraph::launch(LaunchParams& params, std::span<const LaunchDims> dims, std::span<void* const> functions) {
  const CudaDriver& d = *static_cast<const CudaDriver*>(gpu_.driver_);
  if (dims.size() != nodes_.size() || functions.size() != nodes_.size())
    throw Error("CUDA graph: launch dimensions and kernels for " + std::to_string(dims.size()) + " and " +
                std::to_string(functions.size()) + " launches, the graph has " + std::to_string(nodes_.size()));
  Instance* chosen = nullptr;
  for (Instance& i : instances_)
    if (holds(i, params, dims, functions)) {
      chosen = &i;
      break;
    }
  if (!chosen) {
    if (instances_.size() < kInstances) {
      chosen = &addInstance();
    } else {
      // The most recently launched instance takes the new values: a cycle over more buffer
      // sets than kInstances then still hits in the others (least-recently-used would miss
      // on every call of such a cycle).
      chosen = &instances_.front();
      for (Instance& i : instances_)
        if (i.lastLaunch > chosen->lastLaunch) chosen = &i;
    }
    update(*chosen, params, dims, functions);
  }
  chosen->lastLaunch = ++launches_;
  gpu_.check(d.cuGraphLaunch(static_cast<CUgraphExec>(chosen->exec),
                             static_cast<CUstream>(gpu_.stream_)),
             "cuGraphLaunch");
}

}  // namespace tg::rt
