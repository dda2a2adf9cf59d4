//===- DriverFloor.h - What the CUDA driver alone costs the host per call -===//
//
// tg's per-call host time is its own work plus the driver calls it makes. These figures time
// those driver calls bare, on tg's context and stream, so a run reports tg's figure next to the
// floor the same host sets (hosts differ by 1.5-2x in driver call cost). Each is the median of
// `iterations` calls timed one by one with the host clock, as BM_HostPerCall times tg.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

namespace tgbench {

struct DriverFloor {
  double graphLaunchUs = 0;     ///< cuGraphLaunch of a one-kernel graph, parameters unchanged
  double nodeSetParamsUs = 0;   ///< cuGraphExecKernelNodeSetParams of that node (new pointer)
  double allocFreeUs = 0;       ///< cuMemAllocAsync + cuMemFreeAsync of 4 KiB
  double launchKernelUs = 0;    ///< cuLaunchKernel of an empty kernel
  /// A chain of 8 empty kernels as one graph: cuGraphLaunch after every node's parameters
  /// changed (a new pointer each), and after every node's grid changed too (1 or 2 blocks in
  /// turn), the updates and the launch timed together: what a call at new sizes costs the
  /// driver (a plan over dynamic dims updates each node whose sizes or grid moved).
  double chain8NewParamsUs = 0;
  double chain8NewGridsUs = 0;
};

/// Measures the floor on tg's GPU (tg::cuda_available() must be true). Returns false and sets
/// `error` when a driver call fails.
bool measureDriverFloor(int iterations, DriverFloor& out, std::string& error);

}  // namespace tgbench
