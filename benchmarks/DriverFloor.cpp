//===- DriverFloor.cpp - Bare driver calls, timed on tg's context and stream ===//
//
// The driver is opened with dlopen, as tg's runtime does (benchmarks start without a GPU too),
// and every entry point is resolved by the name its cuda.h macro expands to. The kernel is an
// empty one taking one pointer, loaded from PTX, so only launch overhead is timed.
//
//===----------------------------------------------------------------------===//
#include "DriverFloor.h"
#include "Timing.h"

#include "tg/Runtime/Gpu.h"

#include <cuda.h>
#include <dlfcn.h>


namespace tgbench {

namespace {

#define TG_FLOOR_FUNCTIONS(X)                                                          \
  X(cuModuleLoadData) X(cuModuleGetFunction) X(cuModuleUnload) X(cuGraphCreate)        \
  X(cuGraphAddKernelNode) X(cuGraphInstantiate) X(cuGraphLaunch) X(cuGraphExecDestroy) \
  X(cuGraphDestroy) X(cuGraphExecKernelNodeSetParams) X(cuMemAllocAsync)               \
  X(cuMemFreeAsync) X(cuLaunchKernel) X(cuStreamSynchronize)

#define TG_FLOOR_NAME2(x) #x
#define TG_FLOOR_NAME(x) TG_FLOOR_NAME2(x)  // the name after cuda.h's macros (..._v2)

struct Driver {
#define TG_FLOOR_DECLARE(name) decltype(&::name) name = nullptr;
  TG_FLOOR_FUNCTIONS(TG_FLOOR_DECLARE)
#undef TG_FLOOR_DECLARE
  bool load(std::string& error) {
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      error = "dlopen(libcuda.so.1) failed";
      return false;
    }
#define TG_FLOOR_RESOLVE(name)                                                  \
  name = reinterpret_cast<decltype(name)>(dlsym(h, TG_FLOOR_NAME(name)));      \
  if (!name) {                                                                  \
    error = std::string("libcuda.so.1 has no ") + TG_FLOOR_NAME(name);          \
    return false;                                                               \
  }
    TG_FLOOR_FUNCTIONS(TG_FLOOR_RESOLVE)
#undef TG_FLOOR_RESOLVE
    return true;
  }
};

constexpr const char* kEmptyKernelPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry tg_floor_empty(.param .u64 p) { ret; }
)";

}  // namespace

bool measureDriverFloor(int iterations, DriverFloor& out, std::string& error) {
  Driver d;
  if (!d.load(error)) return false;
  CUstream stream = static_cast<CUstream>(tg::rt::Gpu::get()->stream());
  auto ok = [&](CUresult r, const char* what) {
    if (r != CUDA_SUCCESS) error = std::string(what) + " failed (CUresult " + std::to_string(r) + ")";
    return r == CUDA_SUCCESS;
  };
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  CUgraphNode node = nullptr;
  CUdeviceptr arg = 0;
  void* args[] = {&arg};
  CUDA_KERNEL_NODE_PARAMS p{};
  p.gridDimX = p.gridDimY = p.gridDimZ = 1;
  p.blockDimX = 32;
  p.blockDimY = p.blockDimZ = 1;
  p.kernelParams = args;
  bool good = ok(d.cuModuleLoadData(&module, kEmptyKernelPtx), "cuModuleLoadData") &&
              ok(d.cuModuleGetFunction(&function, module, "tg_floor_empty"), "cuModuleGetFunction") &&
              ok(d.cuGraphCreate(&graph, 0), "cuGraphCreate");
  p.func = function;
  good = good && ok(d.cuGraphAddKernelNode(&node, graph, nullptr, 0, &p), "cuGraphAddKernelNode") &&
         ok(d.cuGraphInstantiate(&exec, graph, 0), "cuGraphInstantiate");
  CUresult failed = CUDA_SUCCESS;
  auto note = [&](CUresult r) { failed = failed != CUDA_SUCCESS ? failed : r; };
  if (good) {
    for (int warm = 0; warm < 10; ++warm) note(d.cuGraphLaunch(exec, stream));
    out.graphLaunchUs = medianHostUs(iterations, [&](int) { note(d.cuGraphLaunch(exec, stream)); });
    note(d.cuStreamSynchronize(stream));
    out.nodeSetParamsUs = medianHostUs(iterations, [&](int i) {
      arg = 256 * static_cast<CUdeviceptr>(i % 2);  // a new value each call; never dereferenced
      note(d.cuGraphExecKernelNodeSetParams(exec, node, &p));
    });
    out.allocFreeUs = medianHostUs(iterations, [&](int) {
      CUdeviceptr ptr = 0;
      note(d.cuMemAllocAsync(&ptr, 4096, stream));
      note(d.cuMemFreeAsync(ptr, stream));
    });
    note(d.cuStreamSynchronize(stream));
    out.launchKernelUs = medianHostUs(iterations, [&](int) {
      note(d.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream, args, nullptr));
    });
    note(d.cuStreamSynchronize(stream));
    good = ok(failed, "a timed driver call");
  }
  // The 8-node chain.
  constexpr int kChain = 8;
  CUgraph chain = nullptr;
  CUgraphExec chainExec = nullptr;
  CUgraphNode nodes[kChain] = {};
  good = good && ok(d.cuGraphCreate(&chain, 0), "cuGraphCreate");
  for (int k = 0; good && k < kChain; ++k)
    good = ok(d.cuGraphAddKernelNode(&nodes[k], chain, k ? &nodes[k - 1] : nullptr, k ? 1 : 0, &p), "cuGraphAddKernelNode");
  good = good && ok(d.cuGraphInstantiate(&chainExec, chain, 0), "cuGraphInstantiate");
  if (good) {
    auto updateAndLaunch = [&](int i, bool grids) {
      arg = 256 * static_cast<CUdeviceptr>(i % 2 + 1);
      p.gridDimX = grids ? static_cast<unsigned>(i % 2 + 1) : 1;
      for (CUgraphNode n : nodes) note(d.cuGraphExecKernelNodeSetParams(chainExec, n, &p));
      note(d.cuGraphLaunch(chainExec, stream));
    };
    for (int warm = 0; warm < 10; ++warm) updateAndLaunch(warm, true);
    note(d.cuStreamSynchronize(stream));
    out.chain8NewParamsUs = medianHostUs(iterations, [&](int i) { updateAndLaunch(i, false); });
    note(d.cuStreamSynchronize(stream));
    out.chain8NewGridsUs = medianHostUs(iterations, [&](int i) { updateAndLaunch(i, true); });
    note(d.cuStreamSynchronize(stream));
    good = ok(failed, "a timed driver call");
  }
  if (chainExec) d.cuGraphExecDestroy(chainExec);
  if (chain) d.cuGraphDestroy(chain);
  if (exec) d.cuGraphExecDestroy(exec);
  if (graph) d.cuGraphDestroy(graph);
  if (module) d.cuModuleUnload(module);
  return good;
}

}  // namespace tgbench
