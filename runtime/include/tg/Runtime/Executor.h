//===- Executor.h - Runs a Plan on tg's stream, without host syncs --------===//
#pragma once

#include "tg/Runtime/KernelCache.h"
#include "tg/Runtime/LaunchParams.h"
#include "tg/Runtime/Gpu.h"
#include "tg/Runtime/Plan.h"
#include "tg/Runtime/PlanSizes.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace tg::rt {

class CudaGraph;

class Executor {
 public:
  /// Gets every kernel of `plan` from the kernel cache (compiling what is new) and uploads its
  /// constants. Throws tg::Error when a kernel does not compile.
  Executor(Plan plan, Gpu& gpu);
  ~Executor();

  /// Runs the plan on `inputs` (one buffer per program input, in order) and writes one buffer
  /// per result to `results` (resized; its storage is reused from call to call). Everything is
  /// queued on tg's stream: no host sync. Results that are inputs or constants (or reshapes of
  /// them) share those buffers. The temporaries' arena is allocated once and reused by every
  /// run (runs are ordered on the one stream); results are fresh buffers. Not for concurrent use
  /// from several threads.
  ///
  /// `mayUseCudaGraph`: the caller replays a fixed program call after call (a break-free jit
  /// function). From the second run on, such runs launch the plan as one CUDA graph
  /// (CudaGraph.h). If the driver refuses to build or launch it, tg warns once and launches
  /// kernel by kernel from then on.
  ///
  /// `symbolValues`: a symbolic plan's symbols (Plan::symbols, in order; empty for a static
  /// plan). When they differ from the last run's, the plan's sizes are evaluated again
  /// (PlanSizes.h: buffer bytes, the arena packed again and grown when it must, grids, the
  /// kernels' size arguments, result shapes): host work only, nothing is compiled, and a CUDA
  /// graph gets the new parameters and grids in place. Throws tg::Error (nothing queued) on a
  /// wrong count or a value outside its range.
  void run(const std::vector<std::shared_ptr<DeviceBuffer>>& inputs,
           std::vector<std::shared_ptr<DeviceBuffer>>& results, bool mayUseCudaGraph = false,
           std::span<const int64_t> symbolValues = {});
  /// The same, returning the results (kernel by kernel).
  std::vector<std::shared_ptr<DeviceBuffer>> run(
      const std::vector<std::shared_ptr<DeviceBuffer>>& inputs, std::span<const int64_t> symbolValues = {});

  const Plan& plan() const { return plan_; }
  /// The plan's numbers at the last run's symbol values (a static plan's own, before any run):
  /// the results' shapes, the bytes each buffer had, the grids.
  const PlanSizes& sizes() const { return sizes_; }
  /// How many times the sizes were evaluated for new symbol values (0 for a static plan).
  uint64_t sizeChanges() const { return sizeChanges_; }

  /// Whether runs that may use a CUDA graph launch one now.
  bool usesCudaGraph() const { return graph_ != nullptr; }
  /// Runs launched as a CUDA graph.
  uint64_t cudaGraphLaunches() const { return cudaGraphLaunches_; }
  /// Kernel nodes of the CUDA graph given new parameters: launches on buffer sets that none of
  /// the graph's instances held (CudaGraph.h).
  uint64_t cudaGraphParameterUpdates() const;
  /// Why the CUDA graph was given up (the driver's error), or empty.
  const std::string& cudaGraphFailure() const { return cudaGraphFailure_; }
  /// Device memory one run needs, in bytes as requested (the pool may round up): the
  /// temporaries' arena (allocated at the first run, kept), the constants (uploaded once, kept)
  /// and the result buffers a run allocates. Inputs belong to the caller and are not counted;
  /// nor is the 4-byte tg::check flag that the whole process shares. A symbolic plan's: at the
  /// last run's sizes.
  size_t peakDeviceBytes() const { return sizes_.deviceBytes; }
  /// How the plan's kernels were found when it was loaded: already in memory, read from the
  /// disk cache or compiled by NVRTC (and that time, summed over the compiling threads).
  const KernelCache::Stats& kernelStats() const { return kernelStats_; }

  /// Times every launch of every later run with device events (JitOptions::profile): runs
  /// then launch kernel by kernel, never as a CUDA graph, and each waits for the previous
  /// run's events. A launch's time runs from its event to the next one's, so it includes any
  /// wait for the host between launches.
  void enableProfiling();
  bool profiling() const { return !events_.empty(); }
  struct Profile {
    uint64_t runs = 0;           ///< runs timed (the first profiled run is not: module loads)
    std::vector<double> ms;      ///< per launch, summed over those runs
  };
  /// The times so far (waits for the last run's events).
  const Profile& profile() const;

 private:
  /// Evaluates the plan's sizes for `values` when they differ from the last run's.
  void resize(std::span<const int64_t> values);
  /// Points every plan buffer at its memory for this run (ptrs_, owners_): inputs, constants,
  /// the arena, fresh result buffers.
  void bindBuffers(const std::vector<std::shared_ptr<DeviceBuffer>>& inputs);
  /// Writes launch `l`'s kernel parameters into params_ from ptrs_: the one place that knows
  /// what each kernel takes. Both the direct launches and the CUDA graph read them there.
  void packLaunch(size_t l);
  /// Queues the packed launches as the CUDA graph, building it first when due. False when this
  /// run must launch kernel by kernel.
  bool launchAsCudaGraph(bool mayUseCudaGraph);

  Plan plan_;
  Gpu& gpu_;
  std::vector<void*> functions_;                       // per kernel
  std::vector<void*> launchFunctions_;                 // per launch: its chosen variant's kernel
  std::vector<std::shared_ptr<DeviceBuffer>> constants_;  // per buffer (Constant kind only)
  std::shared_ptr<DeviceBuffer> arena_;                   // temporaries, reused by every run
  PlanSizes sizes_;          // the plan's numbers at the last run's symbol values
  PlanSizes spareSizes_;     // the ones before: evaluated into, then swapped
  uint64_t sizeChanges_ = 0;
  // Scratch reused by every run (no allocation on the per-call path).
  std::vector<std::shared_ptr<DeviceBuffer>> owners_;
  std::vector<DevicePtr> ptrs_;
  // Per launch: parameter 0 is the struct of buffer pointers; launches that load through TMA
  // have parameter 1, their tensor maps, encoded for the base addresses in mapBases_ (re-encoded
  // only when an address changes, or the sizes of a map over dynamic dims).
  LaunchParams params_;
  std::vector<std::vector<DevicePtr>> mapBases_;
  // The CUDA graph of replayed runs (see run()).
  std::unique_ptr<CudaGraph> graph_;
  uint64_t runs_ = 0;
  uint64_t cudaGraphLaunches_ = 0;
  std::string cudaGraphFailure_;
  KernelCache::Stats kernelStats_;
  // Profiling (enableProfiling): one event before each launch and one after the last; the
  // last run's are read at the next run or by profile().
  void collectProfile() const;
  std::vector<void*> events_;
  mutable bool eventsPending_ = false;
  mutable bool firstProfiledRun_ = true;
  mutable Profile profile_;
};

}  // namespace tg::rt
