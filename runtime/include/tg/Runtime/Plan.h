//===- Plan.h - What the compiler hands the runtime: kernels, buffers, launches ===//
//
// Plain structs, no MLIR: the compiler's last step (compiler/lib/CodeGen) fills a Plan, the
// Executor runs it. For static shapes, launch dimensions and buffer sizes are fixed at compile
// time; only the addresses of inputs change from call to call. A plan compiled for a range of
// sizes (dynamic dims) has `symbols`: its sizes that depend on them are `SizeExpr`s beside the
// fixed fields, evaluated at each call from the symbols' values (PlanSizes.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Runtime/KernelAbi.h"
#include "tg/Support/DType.h"
#include "tg/Support/SizeExpr.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tg::rt {

/// One generated kernel: header-free CUDA C++ with one extern "C" __global__ entry `name`.
struct KernelSource {
  std::string name;
  std::string source;
  /// A one-line description for reports and dumps ("elementwise: 10 ops, 2 in, 1 out").
  std::string summary;
};

struct PlanBuffer {
  enum class Kind {
    Input,     ///< The program's input `index`.
    Constant,  ///< `data`, uploaded once when the program is loaded.
    Output,    ///< Allocated on every call: it becomes the program's result(s).
    Arena,     ///< A temporary at `offset` in the per-call arena (shared by liveness).
    Alias,     ///< The memory of buffer `index` from byte `offset` on: a reshape (offset 0)
               ///< or a view a kernel addresses a window through (a multiple of 256 bytes).
    CheckFlag, ///< The device flag that failed tg::checks write (CheckFlag.h).
  };
  Kind kind = Kind::Arena;
  int index = -1;
  size_t bytes = 0;
  size_t offset = 0;
  std::string data;
  std::string label;  ///< What the buffer holds, for dumps ("%3 = tg.add ...").
  /// Symbolic plans: the bytes as a polynomial of the symbols (`bytes` is then unused). An
  /// Arena buffer's offset is then packed at each new size (rt::packArena) from its lifetime:
  /// made by launch `madeAt`, last read by launch `lastReadAt` (launch indices; a buffer no
  /// launch reads has lastReadAt == madeAt). An Alias's bytes are its base's from its offset.
  std::optional<SizeExpr> symbolicBytes;
  int madeAt = 0;
  int lastReadAt = 0;
};

/// The kind's name in plans and in the IR's `#tg.buffer` ("input", ..., "check_flag").
/// Inline: the dialect prints and parses it without linking the runtime.
inline const char* bufferKindName(PlanBuffer::Kind kind) {
  switch (kind) {
    case PlanBuffer::Kind::Input: return "input";
    case PlanBuffer::Kind::Constant: return "constant";
    case PlanBuffer::Kind::Output: return "output";
    case PlanBuffer::Kind::Arena: return "arena";
    case PlanBuffer::Kind::Alias: return "alias";
    case PlanBuffer::Kind::CheckFlag: return "check_flag";
  }
  return "?";
}

/// The kind `name` spells (bufferKindName's inverse).
inline std::optional<PlanBuffer::Kind> bufferKindFromName(std::string_view name) {
  for (PlanBuffer::Kind k : {PlanBuffer::Kind::Input, PlanBuffer::Kind::Constant,
                             PlanBuffer::Kind::Output, PlanBuffer::Kind::Arena,
                             PlanBuffer::Kind::Alias, PlanBuffer::Kind::CheckFlag})
    if (name == bufferKindName(k)) return k;
  return std::nullopt;
}

/// A symbol of a plan compiled for a range of sizes (JitOptions::dynamic): every run passes its
/// value, which must lie in [min, max].
struct PlanSymbol {
  std::string name;
  int64_t min = 1;
  int64_t max = 1;
};

/// A launch extent (blocks along one grid axis) that depends on the symbols: of
/// units = ceil(work / per) * times, max(1, min(cap, units)); with `balanced`, the fewest
/// blocks that take the same number of rounds over the units as `cap` blocks would
/// (ceil(units / ceil(units / cap)): a persistent kernel's CTAs then get equal shares). The
/// kernels that use one loop by the grid's stride or read their extent from their sizes, so a
/// cap never loses work.
struct PlanExtent {
  SizeExpr work = SizeExpr(1);
  int64_t per = 1;
  int64_t cap = (int64_t(1) << 31) - 1;
  SizeExpr times = SizeExpr(1);
  bool balanced = false;
};

/// A tensor map over the launch's argument `arg` (an index into PlanLaunch::buffers). Over
/// dynamic dims, `symbolicDims` (innermost first, one per dim of the map's rank) and
/// `symbolicStrides` (bytes, dims 1 and 2) replace the spec's numbers at each run's sizes
/// (empty: the spec's own).
struct PlanTensorMap {
  int arg = -1;
  TensorMapSpec spec;
  std::vector<SizeExpr> symbolicDims = {};
  std::vector<SizeExpr> symbolicStrides = {};
};

/// Launch `kernel` with a struct of device pointers, one per entry of `buffers` (in order):
/// every generated kernel takes that parameter. Kernels that load through TMA (tensor-core
/// matmuls) take a second parameter: the `tensorMaps`, encoded over the run's buffers, in order,
/// as consecutive 128-byte CUtensorMaps.
struct PlanLaunch {
  int kernel = -1;
  /// The fusion this launch computes (its `tg.kernel` name, as remarks name it): another name
  /// than its kernel's when kernels that differ only in their names were made one.
  std::string fusion;
  LaunchDims dims;
  std::vector<int> buffers;
  std::vector<PlanTensorMap> tensorMaps;
  /// Symbolic plans: the grid's extents, x, y, z (empty: `dims.grid` as it is; fewer than three:
  /// the rest from `dims.grid`), and the sizes the kernel takes as 64-bit integers after its
  /// buffer pointers, in the same parameter struct, evaluated at each run.
  std::vector<PlanExtent> symbolicGrid;
  std::vector<SizeExpr> sizes;
  /// Symbolic plans: guarded variants of this launch, other kernels for the same work (a
  /// matmul's smaller tiles at small sizes). A run takes the first whose `guard`, evaluated at
  /// its sizes, is at most its `upTo`, else this launch itself. A variant has this launch's
  /// buffers, as many size arguments and tensor maps over the same arguments (one parameter
  /// layout for all), and its own kernel, dims, grid, tensor maps and sizes; `why` says what it
  /// specialises, for reports. Its own `variants` are unused.
  std::vector<PlanLaunch> variants;
  SizeExpr guard = SizeExpr(0);
  int64_t upTo = 0;
  std::string why;
};

struct Plan {
  std::string name;
  std::string arch;  ///< NVRTC target the kernels were generated for ("sm_90a").
  /// Every kernel waits for its predecessor itself (TG_GRID_PROLOGUE, templates/prelude.cuh,
  /// compiled with TG_PDL 1): the Executor launches them with programmatic stream
  /// serialization and its CUDA graph joins them with programmatic edges, so each kernel's
  /// launch overlaps the one before (TG_PDL=1, sm_90+).
  bool programmaticLaunches = false;
  std::vector<KernelSource> kernels;
  std::vector<PlanBuffer> buffers;
  std::vector<PlanLaunch> launches;
  std::vector<int> outputs;  ///< The buffer of each program result.
  std::vector<DType> outputDTypes;
  std::vector<Shape> outputShapes;
  size_t arenaBytes = 0;
  /// Empty for static shapes. Otherwise every run passes one value per symbol, in this order,
  /// and each result's shape is `symbolicOutputShapes` evaluated there.
  std::vector<PlanSymbol> symbols;
  std::vector<std::vector<SizeExpr>> symbolicOutputShapes;
  /// What became of each dynamic_update_slice: in place (whose memory) or a copy (why).
  std::vector<std::string> updates;
  /// Inputs the program writes in place (donated arguments a dynamic_update_slice updates):
  /// their buffers become results. The caller must pass buffers no other tensor shares.
  std::vector<int> writtenInputs;
  /// Wall time of each compile step that made the plan, in ms, in order (verify, each stage of
  /// the pipeline, codegen): for reports of where compilation goes.
  std::vector<std::pair<std::string, double>> compileStagesMs;

  /// A readable listing: kernels, buffers, launches (tgc dump --stage=plan).
  std::string str() const;
};

}  // namespace tg::rt
